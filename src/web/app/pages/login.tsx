import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { api, call } from "../api.ts";
import { session } from "../session.ts";
import { Field, FormError, Submit, useForm } from "../ui/form.tsx";
import { IdpSignIn } from "../ui/idp.tsx";
import { nextPath, useTitle } from "../ui/navigation.tsx";

const endings = {
  expired: "Your session has ended. Please sign in again.",
  "signed-out": "You have signed out.",
  "account-deleted": "Your account and all its data have been deleted.",
} as const;

export function Login() {
  useTitle("Sign in");
  const { query, route } = useLocation();
  const [ending] = useState(() => session.takeEnding());
  const next = nextPath(query);
  const form = useForm(async (data) => {
    const email = String(data.get("email"));
    const password = String(data.get("password"));
    // The answer sets the session cookie; the body names the user, no token.
    const answer = await call(api.POST("/api/session", { body: { email, password } }));
    session.start(answer);
    route(next, true);
  });
  return (
    <section class="narrow">
      <h1>Sign in</h1>
      {ending && <p class="notice">{endings[ending]}</p>}
      <form onSubmit={form.onSubmit} noValidate>
        <FormError error={form.error} />
        <Field label="Email" name="email" type="email" autoComplete="email" required errors={form.errors} />
        <Field label="Password" name="password" type="password" autoComplete="current-password" required errors={form.errors} />
        <Submit busy={form.busy}>Sign in</Submit>
      </form>
      <IdpSignIn next={next} />
      <p>
        New here? <a href={`/register${next === "/" ? "" : `?next=${encodeURIComponent(next)}`}`}>Create an account</a>.
      </p>
    </section>
  );
}
