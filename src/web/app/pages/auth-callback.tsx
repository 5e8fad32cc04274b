import { useLocation } from "preact-iso";
import { useEffect, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { session } from "../session.ts";
import { takeIdpAttempt } from "../ui/idp.tsx";
import { useTitle } from "../ui/navigation.tsx";

/**
 * Where the identity provider sends the browser back (IDP_REDIRECT_URI, `/auth/callback?code=&state=`): the
 * code is exchanged by the API for a session (POST /api/session/social, which sets the session cookie) only if the
 * state is the one this tab sent.
 */
export default function AuthCallback() {
  useTitle("Signing in");
  const { query, route } = useLocation();
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    const attempt = takeIdpAttempt();
    if (query.error) return setProblem(`The identity provider did not sign you in (${query.error_description ?? query.error}).`);
    if (!query.code || !attempt || attempt.state !== query.state)
      return setProblem("This sign-in link is not the one this tab started, or it was used already. Please start again.");
    call(api.POST("/api/session/social", { body: { provider: "idp", code: query.code } }))
      .then((answer) => {
        session.start(answer);
        route(attempt.next, true);
      })
      .catch((error: unknown) => {
        const failure = ApiError.of(error);
        setProblem(Object.values(failure.fields).flat()[0] ?? failure.message);
      });
  }, []);
  return (
    <section class="narrow">
      <h1>Signing in</h1>
      {problem ? (
        <>
          <p role="alert" class="form-error">
            {problem}
          </p>
          <p>
            <a href="/login">Back to sign in</a>
          </p>
        </>
      ) : (
        <p aria-live="polite">Signing you in with your identity provider…</p>
      )}
    </section>
  );
}
