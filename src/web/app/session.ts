import { useEffect, useState } from "preact/hooks";

/** Who is signed in, as the login answered: the bearer token and the user it names. */
export type Session = { token: string; user: { id: number; name: string; email: string } };
/** Why the last session ended: the user signed out, or the API refused the token (revoked, or expired). */
export type Ending = "signed-out" | "expired";

/**
 * The API's bearer token lives in localStorage, not sessionStorage: a transcript opened in a new tab, or the
 * browser reopened, should not ask to sign in again. Any script on the origin could read either store, so
 * the choice changes nothing for XSS; what guards the token is the strict Content-Security-Policy (no
 * inline or foreign script) and Preact escaping every text. Signing out revokes the token on the server.
 */
const key = "scribe.session";
const listeners = new Set<() => void>();
let ending: Ending | null = null;

function load(): Session | null {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(key) ?? "null");
    if (typeof value === "object" && value !== null && "token" in value && "user" in value && typeof value.token === "string") return value as Session;
  } catch {}
  return null;
}

let current = load();
const notify = () => {
  for (const listener of listeners) listener();
};

// Signing in or out in another tab does the same here.
addEventListener("storage", (event) => {
  if (event.key !== key) return;
  current = load();
  notify();
});

export const session = {
  current: () => current,
  token: () => current?.token ?? null,
  /** Why the previous session ended, once: the sign-in page says so. */
  takeEnding(): Ending | null {
    const value = ending;
    ending = null;
    return value;
  },
  start(next: Session): void {
    current = next;
    ending = null;
    localStorage.setItem(key, JSON.stringify(next));
    notify();
  },
  end(why: Ending): void {
    if (current === null) return;
    current = null;
    ending = why;
    localStorage.removeItem(key);
    notify();
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The session, re-rendering the component when it starts or ends. */
export function useSession(): Session | null {
  const [value, setValue] = useState(current);
  useEffect(() => session.subscribe(() => setValue(current)), []);
  return value;
}
