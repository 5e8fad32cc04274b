/**
 * The headers every answer gets, set in one place (last-resort.ts applies them to every response, error answers
 * included) so that a page added later cannot go without them: `X-Content-Type-Options: nosniff` on everything,
 * and on every HTML page a Content-Security-Policy, a Referrer-Policy and no framing. A page that needs more
 * than the strict default policy sets its own (the web app's, the API reference's), which is kept.
 */

/**
 * The policy of an HTML page that names none (the sandbox checkout's): no script at all, its inline styles,
 * images and forms of this origin only, and no framing.
 */
export const defaultPagePolicy = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

function setMissing(headers: Headers, name: string, value: string): void {
  if (!headers.has(name)) headers.set(name, value);
}

function addTo(headers: Headers): void {
  setMissing(headers, "x-content-type-options", "nosniff");
  const type = headers.get("content-type");
  if (type === null || !type.toLowerCase().startsWith("text/html")) return;
  setMissing(headers, "content-security-policy", defaultPagePolicy);
  setMissing(headers, "referrer-policy", "same-origin");
  setMissing(headers, "x-frame-options", "DENY");
}

/** `response` with the baseline headers; a copy when its headers cannot change (a response passed on from `fetch`). */
export function withBaselineHeaders(response: Response): Response {
  try {
    addTo(response.headers);
    return response;
  } catch {
    const copy = new Response(response.body, { status: response.status, statusText: response.statusText, headers: new Headers(response.headers) });
    addTo(copy.headers);
    return copy;
  }
}
