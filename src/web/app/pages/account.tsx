import { useEffect, useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { ApiKeys } from "../ui/api-keys.tsx";
import { DataExport } from "../ui/data-export.tsx";
import { DeleteAccount } from "../ui/delete-account.tsx";
import { RetentionSetting } from "../ui/retention.tsx";
import { duration } from "../ui/format.ts";
import { useTitle } from "../ui/navigation.tsx";
import { allowanceInWords, isUpgrade, priceInWords } from "../ui/plans.ts";

type User = components["schemas"]["User"];

type Offer = components["schemas"]["CheckoutOptions"];

/**
 * What checkout sells (`GET /api/checkout/{plan}`), in the order shown. Each offer is asked for when the page opens,
 * for its price (asking records nothing), and again when chosen, since its link is signed for one hour.
 */
const offers = [
  { plan: "month", label: "Upgrade to Pro, monthly" },
  { plan: "year", label: "Upgrade to Pro, yearly" },
  { plan: "test", label: "Try the checkout (Pro for a nominal price)" },
] as const;

/** The offers as the API answered them; null while asked; an offer the API did not answer is left out. */
function useOffers(): Offer[] | null {
  const [loaded, setLoaded] = useState<Offer[] | null>(null);
  useEffect(() => {
    let current = true;
    const asked = offers.map(({ plan }) => call(api.GET("/api/checkout/{plan}", { params: { path: { plan } } })).catch(() => null));
    void Promise.all(asked).then((answers) => current && setLoaded(answers.filter((offer): offer is Offer => offer !== null)));
    return () => {
      current = false;
    };
  }, []);
  return loaded;
}

/**
 * The plans for sale with their prices, and checkout for each, offered only to an account on a plan below the
 * one it sells: an account on Pro or Max is told its plan already includes them.
 */
function Checkout({ planKey, planName }: { planKey: string; planName: string }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const loaded = useOffers();
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
  const upgrades = loaded?.some((offer) => isUpgrade(planKey, offer.plan_key)) ?? false;
  return (
    <section aria-labelledby="checkout">
      <h2 id="checkout">{upgrades ? "Change plan" : "Plans and prices"}</h2>
      <div role="alert">{problem && <p class="form-error">{problem}</p>}</div>
      {loaded === null && <p class="muted">Loading the prices…</p>}
      {loaded !== null && !upgrades && loaded.length > 0 && <p>Your plan, {planName}, already includes what is for sale here.</p>}
      {loaded !== null && loaded.length > 0 && (
        <ul class="offers" aria-label="Plans for sale">
          {offers.map(({ plan, label }) => {
            const offer = loaded.find((answer) => answer.plan === plan);
            if (!offer) return null;
            return (
              <li key={plan}>
                <span class="offer-terms">
                  <strong>{offer.description}</strong>: {priceInWords(offer.price, offer.currency, offer.interval)}, with{" "}
                  {allowanceInWords(offer.monthly_allowance_seconds)} of transcription a month
                </span>
                {isUpgrade(planKey, offer.plan_key) && (
                  <button type="button" disabled={busy} onClick={() => go(plan)}>
                    {label}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
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
      <Checkout planKey={subscription.plan_key} planName={subscription.plan} />
      <ApiKeys paid={subscription.tier !== "free"} />
      <RetentionSetting days={user.retention_days} maxDays={user.retention_max_days} />
      <DataExport />
      <DeleteAccount />
    </section>
  );
}
