import { config } from "../config.ts";

const stateKey = "scribe.idp";

/** What the login page left for /auth/callback: the state it sent, and where to go once signed in. */
export type IdpAttempt = { state: string; next: string };

/** The attempt this tab started, once: a state is good for one callback. */
export function takeIdpAttempt(): IdpAttempt | null {
  const stored = sessionStorage.getItem(stateKey);
  sessionStorage.removeItem(stateKey);
  try {
    const value: unknown = JSON.parse(stored ?? "null");
    if (typeof value === "object" && value !== null && "state" in value && "next" in value) return value as IdpAttempt;
  } catch {}
  return null;
}

/**
 * "Sign in with idp", when the server has an identity provider. The state is random and kept in this tab's
 * sessionStorage: the callback accepts only a code that comes back with it, so no other site can sign the
 * browser into an account of its choosing (login CSRF). The server only turns the state into the provider's
 * authorization URL (GET /auth/idp).
 */
export function IdpSignIn({ next }: { next: string }) {
  if (!config.idp) return null;
  const start = () => {
    const bytes = crypto.getRandomValues(new Uint8Array(24));
    const state = btoa(String.fromCharCode(...bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    sessionStorage.setItem(stateKey, JSON.stringify({ state, next } satisfies IdpAttempt));
    location.assign(`/auth/idp?state=${state}`);
  };
  return (
    <div class="alternative">
      <p>or</p>
      <button type="button" onClick={start}>
        Sign in with idp
      </button>
    </div>
  );
}
