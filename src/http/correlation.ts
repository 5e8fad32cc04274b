const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Ties the events a request causes together: the client's X-Request-Id when sane, else a fresh id. */
export function correlationIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && acceptable.test(given) ? given : crypto.randomUUID();
}
