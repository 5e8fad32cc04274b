import { useLocation } from "preact-iso";
import { useState } from "preact/hooks";
import { api, call } from "../api.ts";
import { session } from "../session.ts";
import { Field, FormError, Submit, useForm } from "./form.tsx";

/**
 * "Delete account" (`DELETE /api/user`): in two steps, so that one stray press erases nothing. The second asks for the
 * password; an account made through the identity provider has none, and must have signed in within the last 5 minutes
 * instead (the API says so when it has not). Once erased, the app signs out to the sign-in page, which says why.
 */
export function DeleteAccount() {
  const { route } = useLocation();
  const [confirming, setConfirming] = useState(false);
  const form = useForm(async (data) => {
    const password = String(data.get("password") ?? "");
    await call(api.DELETE("/api/user", { body: password === "" ? {} : { password } }));
    route("/login");
    session.end("account-deleted");
  });
  return (
    <section aria-labelledby="delete-account">
      <h2 id="delete-account">Delete account</h2>
      <p>
        Deleting your account erases it for good: every task with its recordings, transcripts and exports, your API keys, webhooks and notifications. It cannot
        be undone. Download your data first if you want to keep a copy.
      </p>
      {confirming ? (
        <form onSubmit={form.onSubmit} noValidate aria-label="Confirm deleting the account">
          <FormError error={form.error} />
          <Field label="Your password" name="password" type="password" autoComplete="current-password" maxLength={255} errors={form.errors} />
          <p class="muted">Signed up through the identity provider, without a password? Leave it empty: you must have signed in within the last 5 minutes.</p>
          <span class="actions">
            <Submit busy={form.busy}>Delete my account and all its data</Submit>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        </form>
      ) : (
        <button type="button" class="danger" onClick={() => setConfirming(true)}>
          Delete account…
        </button>
      )}
    </section>
  );
}
