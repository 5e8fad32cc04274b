import { useEffect, useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { ApiKeys } from "../ui/api-keys.tsx";
import { duration } from "../ui/format.ts";
import { useTitle } from "../ui/navigation.tsx";

type User = components["schemas"]["User"];

/** What checkout sells (GET /api/checkout/{plan}); each offer is fetched when chosen, since its link is signed for one hour. */
const offers = [
  { plan: "month", label: "Upgrade to Pro, monthly" },
  { plan: "year", label: "Upgrade to Pro, yearly" },
  { plan: "test", label: "Try the checkout (Pro for a nominal price)" },
] as const;

function Checkout() {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const go = async (plan: string) => {
    setBusy(true);
    setProblem(null);
    try {
      const offer = await call(api.GET("/api/checkout/{plan}", { params: { path: { plan } } }));
      location.assign(offer.checkout_url);
    } catch (error) {
      setProblem(ApiError.of(error).message);
      setBusy(false);
    }
  };
  return (
    <section aria-labelledby="checkout">
      <h2 id="checkout">Change plan</h2>
      <div role="alert">{problem && <p class="form-error">{problem}</p>}</div>
      <ul class="actions">
        {offers.map(({ plan, label }) => (
          <li key={plan}>
            <button type="button" disabled={busy} onClick={() => go(plan)}>
              {label}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Balance({ balance }: { balance: User["balance"] }) {
  return (
    <section aria-labelledby="balance">
      <h2 id="balance">Balance and usage</h2>
      <p>
        <label for="usage">Used this month: {balance.usage_percent} %</label>
        <progress id="usage" max={100} value={balance.usage_percent} />
      </p>
      <dl class="facts">
        <dt>Remaining</dt>
        <dd>{duration(balance.remaining_seconds)}</dd>
        <dt>Used since the monthly allowance</dt>
        <dd>{duration(balance.used_seconds)}</dd>
        <dt>Left of this month's allowance</dt>
        <dd>{duration(balance.allowance_remaining_seconds)}</dd>
        <dt>Left of top-ups</dt>
        <dd>{duration(balance.top_up_remaining_seconds)}</dd>
      </dl>
    </section>
  );
}

/** The account: who, which plan, how much time is left, how to upgrade, and API keys on paid plans. */
export default function Account() {
  useTitle("Account");
  const [user, setUser] = useState<User | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    call(api.GET("/api/user"))
      .then(setUser)
      .catch((error: unknown) => setProblem(ApiError.of(error).message));
  }, []);
  if (problem) {
    return (
      <section>
        <h1>Account</h1>
        <p role="alert" class="form-error">
          {problem}
        </p>
      </section>
    );
  }
  if (!user) return <p aria-live="polite">Loading your account…</p>;
  const { subscription } = user;
  return (
    <section>
      <h1>Account</h1>
      <p>
        {user.name} · {user.email}
      </p>
      <section aria-labelledby="plan">
        <h2 id="plan">Plan</h2>
        <p>
          <strong>{subscription.plan}</strong>
          {subscription.billing_interval !== "none" && `, billed every ${subscription.billing_interval}`}
        </p>
      </section>
      <Balance balance={user.balance} />
      <Checkout />
      <ApiKeys paid={subscription.tier !== "free"} />
    </section>
  );
}
