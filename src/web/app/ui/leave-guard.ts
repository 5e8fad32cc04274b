import { useEffect, useRef } from "preact/hooks";

/** The page's unsaved work, while a page holds some: where it is, and the question to ask before leaving it. */
type Guard = { here: string; unsaved: () => boolean; question: string };

let guard: Guard | null = null;
const guarding = () => guard?.unsaved() === true;
const path = () => location.pathname + location.search;

/**
 * Whether a click on `event`'s link is a navigation the app's router (preact-iso) makes in the page: the same
 * checks as its own click handler (a plain left click on a same-origin link, not a `#` link, no other target, no
 * download). Anything else the browser does itself, and `beforeunload` covers that.
 */
function inAppLink(event: MouseEvent): HTMLAnchorElement | null {
  if (event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return null;
  const link = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement && node.href !== "");
  if (!link || link.origin !== location.origin || link.download || !/^(_?self)?$/i.test(link.target)) return null;
  if ((link.getAttribute("href") ?? "").startsWith("#")) return null;
  return link;
}

/**
 * Listens for every way of leaving a page: reloading or closing the tab and following an outside link (the
 * browser's own prompt, `beforeunload`), following a link of the app (a click) and going back or forward (`popstate`).
 * Called once, before the app's router starts: `popstate` is an event at `window` itself, whose listeners run in the
 * order they were added, so this one runs before the router's and can stop it; a click reaches `window`'s capture
 * listener before the router's anyway. Nothing is asked while no page holds unsaved work (useLeaveGuard).
 */
export function watchLeaving(): void {
  addEventListener("beforeunload", (event) => {
    if (!guarding()) return;
    event.preventDefault();
    // Older browsers show the prompt only when returnValue is set.
    event.returnValue = "";
  });
  addEventListener(
    "click",
    (event) => {
      if (!guarding()) return;
      const link = inAppLink(event);
      if (!link || link.pathname + link.search === guard!.here || confirm(guard!.question)) return;
      event.preventDefault();
      event.stopPropagation();
    },
    true,
  );
  addEventListener("popstate", (event) => {
    if (!guarding() || path() === guard!.here || confirm(guard!.question)) return;
    // The address has moved already: back to this page's, and the router never hears of it.
    event.stopImmediatePropagation();
    history.pushState(null, "", guard!.here);
  });
}

/** While `unsaved` holds, leaving this page asks `question` first (see watchLeaving). */
export function useLeaveGuard(unsaved: boolean, question: string): void {
  const latest = useRef(unsaved);
  latest.current = unsaved;
  useEffect(() => {
    const mine: Guard = { here: path(), unsaved: () => latest.current, question };
    guard = mine;
    return () => {
      if (guard === mine) guard = null;
    };
  }, [question]);
}
