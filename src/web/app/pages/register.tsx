import { useLocation } from "preact-iso";
import { api, call } from "../api.ts";
import { session } from "../session.ts";
import { Field, FormError, Submit, useForm } from "../ui/form.tsx";
import { IdpSignIn } from "../ui/idp.tsx";
import { nextPath, useTitle } from "../ui/navigation.tsx";

export function Register() {
  useTitle("Create an account");
  const { query, route } = useLocation();
  const next = nextPath(query);
  const form = useForm(async (data) => {
    const field = (name: string) => String(data.get(name) ?? "");
    const body = { name: field("name"), email: field("email"), password: field("password"), password_confirmation: field("password_confirmation") };
    // The answer sets the session cookie; the body names the user, no token.
    const answer = await call(api.POST("/api/session/register", { body }));
    session.start(answer);
    route(next, true);
  });
  return (
    <section class="narrow">
      <h1>Create an account</h1>
      {/* The API checks every field and answers all problems at once; the browser's own checks would hide all but the first. */}
      <form onSubmit={form.onSubmit} noValidate>
        <FormError error={form.error} />
        <Field label="Name" name="name" autoComplete="name" required maxLength={255} errors={form.errors} />
        <Field label="Email" name="email" type="email" autoComplete="email" required maxLength={255} errors={form.errors} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" required minLength={8} errors={form.errors} />
        <Field label="Confirm password" name="password_confirmation" type="password" autoComplete="new-password" required errors={form.errors} />
        <Submit busy={form.busy}>Create account</Submit>
      </form>
      <IdpSignIn next={next} />
      <p>
        Already have an account? <a href="/login">Sign in</a>.
      </p>
    </section>
  );
}
