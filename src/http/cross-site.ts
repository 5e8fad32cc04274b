import { ForbiddenError } from "../core/errors.ts";
import type { OriginOf, RequestContext } from "./request-origin.ts";

/** Methods that change something. GET and HEAD change nothing, so another site gains nothing by sending them. */
const unsafeMethods = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const isUnsafeMethod = (method: string) => unsafeMethods.has(method.toUpperCase());

/** The origin of an `Origin` or `Referer` value, or null for `null`, an opaque origin or anything that is not http(s). */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * Whether a request that a browser sent with our cookie was made by one of our own pages (cross-site request
 * forgery protection for the session cookie). `ownOrigins`: the address the request came to as its client sees it
 * (its Host and scheme, or a trusted proxy's X-Forwarded-Host and -Proto; src/http/request-origin.ts) and
 * PUBLIC_URL's origin.
 *
 * The browser's own `Origin` decides, compared exactly (scheme, host and port). Without it (older browsers on
 * some requests), `Sec-Fetch-Site`, which no page can set, must say `same-origin`; without either, the `Referer`'s
 * origin decides. A request with none of them did not come from a page of ours that we can tell, and is refused.
 * Where `Origin` is present, a `Sec-Fetch-Site` other than `same-origin` refuses it too.
 */
export function fromOwnPage(request: Request, ownOrigins: readonly string[]): boolean {
  const headers = request.headers;
  const fetchSite = headers.get("sec-fetch-site");
  if (fetchSite !== null && fetchSite !== "same-origin") return false;
  const origin = headers.get("origin");
  if (origin !== null) {
    const parsed = originOf(origin);
    return parsed !== null && ownOrigins.includes(parsed);
  }
  if (fetchSite === "same-origin") return true;
  const referer = headers.get("referer");
  if (referer === null) return false;
  const parsed = originOf(referer);
  return parsed !== null && ownOrigins.includes(parsed);
}

/** 403 in the one error shape for a cookie-authenticated request that changes something and did not come from our pages. */
export function refuseCrossSite(request: Request, ownOrigins: readonly string[]): void {
  if (isUnsafeMethod(request.method) && !fromOwnPage(request, ownOrigins)) {
    throw new ForbiddenError(
      "This request did not come from this site's own pages (its Origin is another site's, or missing), so the session cookie is not accepted for it.",
    );
  }
}

/** The address a request came to and PUBLIC_URL, as the cookie's checks need them. */
export type OwnSite = {
  /** Where our own pages are: the request's origin as its client sees it, and PUBLIC_URL's origin. */
  origins(context: RequestContext): string[];
  /** Whether the client reached us over https: the session cookie is then `Secure`. */
  secure(context: RequestContext): boolean;
};

export function ownSite(originOf: OriginOf, publicUrl: string): OwnSite {
  const publicOrigin = new URL(publicUrl).origin;
  return {
    origins: (context) => [...new Set([new URL(originOf(context)).origin, publicOrigin])],
    secure: (context) => originOf(context).startsWith("https:"),
  };
}
