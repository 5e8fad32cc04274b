import { useLocation } from "preact-iso";
import { useEffect } from "preact/hooks";

/** Replaces the current entry with another path (a page that needs a session, without one). */
export function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to]);
  return null;
}

/** The tab's title names the page: screen readers announce it, and the history lists it. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Scribe`;
  }, [title]);
}

/** Where to go after signing in: the page that asked for it, if it is one of ours. */
export function nextPath(query: Record<string, string>): string {
  const next = query.next ?? "/";
  return next.startsWith("/") && !next.startsWith("//") ? next : "/";
}
