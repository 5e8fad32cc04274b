const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** What one request carries from its first hook to its log line: its id, when it began, who made it. */
export type RequestContext = { id: string; startedAt: number; userId: number | null };

// Keyed by the Request itself, so nothing has to thread it through Elysia's context types, and it goes when the request does.
const contexts = new WeakMap<Request, RequestContext>();

/** The request's context, made on first use: its id is the client's X-Request-Id when sane, else a fresh one. */
export function requestContext(request: Request): RequestContext {
  let context = contexts.get(request);
  if (!context) {
    const given = request.headers.get("x-request-id");
    context = { id: given && acceptable.test(given) ? given : crypto.randomUUID(), startedAt: performance.now(), userId: null };
    contexts.set(request, context);
  }
  return context;
}

/** A request replaced by a copy of itself (bounded-body-parser.ts, a streamed form) keeps its id and start time. */
export function carryRequestContext(from: Request, to: Request): void {
  contexts.set(to, requestContext(from));
}

/** Ties the events a request causes, and its log line, together: one id per request, however often it is asked for. */
export function correlationIdOf(request: Request): string {
  return requestContext(request).id;
}
