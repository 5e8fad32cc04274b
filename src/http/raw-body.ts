/**
 * For the few routes that need a body as it was sent (a webhook's signature covers the raw bytes).
 * The global body parser (bounded-body-parser.ts) reads every JSON body once, as it arrives, and keeps the
 * text of small ones here for the request's lifetime; a route that wants the raw body declares
 * `parse: leaveBodyUnread` (so other content types reach it unread) and reads `rawBodyText` first.
 */
const rawBodies = new WeakMap<Request, string>();

export function keepRawBody(request: Request, text: string): void {
  rawBodies.set(request, text);
}

/** The body's text as the global parser read it, or null when it did not (then read the request). */
export function rawBodyText(request: Request): string | null {
  return rawBodies.get(request) ?? null;
}

/**
 * Ends Elysia's parse chain without reading the body. A function rather than `parse: "none"`: Elysia 1.4
 * honours "none" only when it is the route's sole parse hook, and answers 400 once the app has a global
 * onParse, as ours does.
 */
export const leaveBodyUnread = () => null;
