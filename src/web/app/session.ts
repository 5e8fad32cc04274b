import { useEffect, useState } from "preact/hooks";

/** Who is signed in, as the API answered: the session itself is an HttpOnly cookie, which no script here can read. */
export type Session = { user: { id: number; name: string; email: string } };
/** Why the last session ended: the user signed out or deleted the account, or the API refused the cookie (signed out elsewhere, or expired). */
export type Ending = "signed-out" | "expired" | "account-deleted";

/**
 * The app signs in to a first-party session (`POST /api/session`): the server sets an HttpOnly, SameSite=Strict
 * cookie that the browser sends with every request of this origin, and that nothing on the page can read, so a
 * script that got onto the page could use the session while the page is open but never carry it away. Nothing of
 * it is kept in localStorage or sessionStorage. Who is signed in is asked once per page load (`GET /api/session`),
 * only when the server's readable `scribe_signed_in=1` cookie (no secret in it) says there may be a session: a
 * visitor who never signed in asks nothing. Other tabs of the app hear of a sign-in or sign-out on a BroadcastChannel.
 *
 * `undefined` while that first answer is awaited: pages behind a sign-in wait rather than send the visitor to the
 * sign-in page.
 */
const listeners = new Set<() => void>();
let current: Session | null | undefined;
let ending: Ending | null = null;
const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("scribe.session") : null;

const notify = () => {
  for (const listener of listeners) listener();
};

/** What one tab tells the others: who is signed in now, and why a session ended. */
type Message = { session: Session | null; ending: Ending | null };

const hint = "scribe_signed_in";
const hinted = () => typeof document !== "undefined" && document.cookie.split(";").some((c) => c.trim().startsWith(`${hint}=`));

/** The API refused the session: the next page load need not ask again. */
const forgetHint = () => {
  // biome-ignore lint/suspicious/noDocumentCookie: the Cookie Store API is not in every browser the app serves; this only removes a fixed, valueless cookie.
  if (hinted()) document.cookie = `${hint}=; Max-Age=0; Path=/; SameSite=Strict${location.protocol === "https:" ? "; Secure" : ""}`;
};

function set(next: Session | null, tell: boolean): void {
  current = next;
  if (tell) channel?.postMessage({ session: next, ending } satisfies Message);
  notify();
}

function asSession(value: unknown): Session | null {
  const user = typeof value === "object" && value !== null && "user" in value ? value.user : null;
  if (typeof user !== "object" || user === null) return null;
  const { id, name, email } = user as Record<string, unknown>;
  return typeof id === "number" && typeof name === "string" && typeof email === "string" ? { user: { id, name, email } } : null;
}

// Signing in or out in another tab does the same here.
channel?.addEventListener("message", (event: MessageEvent) => {
  const message = typeof event.data === "object" && event.data !== null ? (event.data as Partial<Message>) : {};
  const next = asSession(message.session);
  if (next === null && current) ending = message.ending === "expired" ? "expired" : "signed-out";
  set(next, false);
});

/** The first answer: plain fetch, since the API client (api.ts) itself ends the session on a 401. Unreachable: signed out for now. */
async function ask(): Promise<Session | null> {
  if (!hinted()) return null;
  try {
    const response = await fetch("/api/session", { headers: { accept: "application/json" } });
    if (response.status === 401) {
      // There was a session here (the hint says so), and the API no longer takes it: signed out elsewhere, or expired.
      forgetHint();
      ending = "expired";
    }
    return response.ok ? asSession(await response.json()) : null;
  } catch {
    return null;
  }
}

const loaded = ask().then((found) => {
  if (current === undefined) set(found, false);
});

export const session = {
  /** The signed-in user, null when signed out, undefined until the first answer. */
  current: () => current,
  /** Settles once it is known whether someone is signed in. */
  loaded: () => loaded,
  /** Why the previous session ended, once: the sign-in page says so. */
  takeEnding(): Ending | null {
    const value = ending;
    ending = null;
    return value;
  },
  /** The API signed the user in (and set the cookie): `answer` is its `{user}`. */
  start(answer: Session): void {
    ending = null;
    set({ user: answer.user }, true);
  },
  end(why: Ending): void {
    if (!current) return;
    ending = why;
    forgetHint();
    set(null, true);
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

/** The session, re-rendering the component when it starts or ends; undefined until it is known. */
export function useSession(): Session | null | undefined {
  const [value, setValue] = useState(current);
  useEffect(() => {
    setValue(current);
    return session.subscribe(() => setValue(current));
  }, []);
  return value;
}
