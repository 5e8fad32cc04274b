import { Elysia } from "elysia";
import { UnauthenticatedError } from "../core/errors.ts";
import { takesLargeBody } from "./request-limits.ts";

/**
 * Every route that takes a body over the ordinary limit (request-limits.ts's `takesLargeBody`) needs a credential,
 * and Elysia authenticates after it has read and parsed the body: a client without an account made the service read and
 * parse a 24 MiB transcript, holding a heavy-work slot that real uploads wait for, to be told 401 (100–500 ms each).
 * So a body declared larger than the ordinary limit, to a route that takes one, on a request that carries nothing
 * that could be a credential (no `Authorization`, no cookie), gets that 401 before a byte of it is read. A made-up
 * credential still has its body read: only authentication's lookup tells it apart. On any other route such a body
 * is the limits' 413.
 */
export function credentialFirst(ordinaryBodyBytes: number) {
  return new Elysia({ name: "credential-first" }).onRequest(({ request }) => {
    if (request.body === null || request.headers.has("authorization") || request.headers.has("cookie")) return;
    const declared = Number(request.headers.get("content-length") ?? Number.NaN);
    if (!(declared > ordinaryBodyBytes)) return;
    if (takesLargeBody(request.method, new URL(request.url, "http://localhost").pathname)) throw new UnauthenticatedError();
  });
}
