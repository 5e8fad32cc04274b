import { sessionSecretPattern } from "./secrets.ts";

/**
 * The web app's session cookie. `HttpOnly`: no script on the page can read it, so an injected script cannot
 * carry the session away. `SameSite=Strict`: the browser sends it only with requests made by our own pages
 * (the second layer behind the Origin check of src/http/cross-site.ts). `Path=/`, no `Domain`: this host only.
 * `Secure` where the app is served over https (the address the request came to: its scheme, a trusted proxy's
 * X-Forwarded-Proto, or PUBLIC_URL's scheme for a request to PUBLIC_URL's host; src/http/request-origin.ts). The
 * name has no `__Host-` prefix: that needs `Secure`, and the app is also served over plain http (localhost, a LAN).
 */
export const sessionCookieName = "scribe_session";

/**
 * Beside it, a cookie the page can read that holds no secret (`1`) and lives as long: the app asks who is signed in
 * (`GET /api/session`) only when it is there, so a visitor who never signed in (a shared link's reader) makes no
 * request that can only fail. The app removes it itself when the API refuses the session.
 */
export const signedInHintName = "scribe_signed_in";

const attributes = (secure: boolean) => `Path=/; SameSite=Strict${secure ? "; Secure" : ""}`;

/** `Set-Cookie` values for a session that lasts until `expiresAt` (the browser forgets it then; the server refuses it then too). */
export function sessionCookies(secret: string, expiresAt: string, now: Date, secure: boolean): string[] {
  const maxAge = Math.max(0, Math.floor((Date.parse(expiresAt) - now.getTime()) / 1000));
  return [
    `${sessionCookieName}=${secret}; Max-Age=${maxAge}; HttpOnly; ${attributes(secure)}`,
    `${signedInHintName}=1; Max-Age=${maxAge}; ${attributes(secure)}`,
  ];
}

/** `Set-Cookie` values that make the browser forget the session. */
export function clearedSessionCookies(secure: boolean): string[] {
  return [`${sessionCookieName}=; Max-Age=0; HttpOnly; ${attributes(secure)}`, `${signedInHintName}=; Max-Age=0; ${attributes(secure)}`];
}

/**
 * The session cookie of a `Cookie` header: `absent` (no cookie of that name), or its value when it has the shape
 * of a session secret, or `malformed` (tampered, truncated, another site's junk under our name), which is refused
 * without a lookup. Where a name repeats (a cookie set for a parent path or domain besides ours), the first counts,
 * as browsers send the most specific first.
 */
export function sessionCookieOf(header: string | null | undefined): { secret: string } | "absent" | "malformed" {
  if (!header) return "absent";
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals === -1 || part.slice(0, equals).trim() !== sessionCookieName) continue;
    const value = part.slice(equals + 1).trim();
    return sessionSecretPattern.test(value) ? { secret: value } : "malformed";
  }
  return "absent";
}
