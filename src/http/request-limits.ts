import { Elysia } from "elysia";
import { errorJson } from "./error-handler.ts";
import { JsonBodyThreads } from "./json-body-threads.ts";
import type { RouteBody } from "./body-plans.ts";
import { isOpenAiPath, openAiErrorJson } from "./openai-errors.ts";
import { waitForHeavyWork } from "./heavy-work-slots.ts";
import type { Semaphore } from "../core/semaphore.ts";
import type { RequestContext } from "./request-origin.ts";
import { mediaTypeOf, routeBodyLimits, tooLarge, unlimited, type RequestLimits, type RouteBodyLimits } from "./route-body-limits.ts";
import { boundedBodyParser, type BeforeSizeRefusal } from "./bounded-body-parser.ts";

export { defaultRequestLimits, takesLargeBody, type RequestLimits } from "./route-body-limits.ts";
export type { BeforeSizeRefusal } from "./bounded-body-parser.ts";

/**
 * Before a byte of the body is read: a Host that makes no URL is 400, a body declared over its route's limit 413,
 * and one declared over the ordinary limit waits for its heavy-work slot.
 */
function refuseDeclaredSize(limits: RequestLimits, heavyWork: Semaphore, sizes: RouteBodyLimits, beforeSizeRefusal: BeforeSizeRefusal) {
  return async ({ request, server }: RequestContext) => {
    // Bun builds request.url from the Host: with a path, user info or an open bracket in it, the URL is relative or
    // none at all, and nothing after this could read it. HTTP's answer to a malformed Host is 400. (Without a Host,
    // as HTTP/1.0 health probes send them, the URL is relative too; those keep working as they did.)
    if (request.headers.has("host") && !URL.canParse(request.url)) return errorJson(400, { message: "The Host header is not a valid host name." });
    if (request.method === "GET" || request.method === "HEAD" || request.body === null) return;
    const path = new URL(request.url, "http://localhost").pathname;
    if (unlimited(path)) return;
    const limit = sizes.limitOf(request.method, path, mediaTypeOf(request.headers.get("content-type")));
    const declared = Number(request.headers.get("content-length") ?? NaN);
    // The OpenAI-compatible routes answer in OpenAI's error shape (openai-errors.ts).
    const refuse = (status: number, message: string) => (isOpenAiPath(path) ? openAiErrorJson(status, message) : errorJson(status, { message }));
    // The rest is Bun's to read and drop after the answer: see `refuseUnread` in bounded-body-parser.ts.
    if (declared > limit) {
      await beforeSizeRefusal({ request, server }, path);
      return refuse(413, tooLarge(limit));
    }
    if (declared > limits.bodyBytes) await waitForHeavyWork(request, heavyWork, server);
  };
}

/**
 * Bounds every request body before anything parses it. Over its route's byte limit is 413: by
 * Content-Length before a byte is read, or while it streams. A body without a length (chunked, as the
 * official OpenAI SDK sends a file stream) is accepted and counted as it arrives: a JSON one like any other,
 * a form read up to its limit and handed to Elysia's form parser as a copy of known length (413 as soon as
 * the limit is passed, nothing kept beyond it). A JSON body is read once, as it arrives: it must be UTF-8 (422,
 * `body`), and its shape within json-shape.ts's bounds (422, answered as soon as the text breaks one, unread rest
 * and all); only then is it parsed, once, and handed to validation (bounded-body-parser.ts). Deep JSON made validation recurse for seconds (a 60 KB
 * body kept the server busy 7.8 s), unbounded bodies took gigabytes, and 24 MiB of `[0,0,...]` 3.4 s.
 *
 * Bodies over the ordinary limit (transcripts, avatars) take a slot of `heavyWork` (HEAVY_WORK_AT_ONCE)
 * for their whole request, waiting in line for it: each costs hundreds of megabytes while it is parsed,
 * validated and stored, and four at once took 2.7 GB. A streamed body takes its slot when it passes the
 * ordinary limit.
 *
 * What JSON.parse pays for most is member names, each new one and each new order of them: 12 MB of one object
 * of a million members held the event loop 650 ms, and 17 MB of objects of 19 members in new orders of 1,000
 * names 120 ms to 1.1 s. Here those names are bounded as the text arrives (json-shape.ts), and a large body
 * that has a name its route's schema does not know (`routes`: the app's, looked up on first use) is parsed on
 * a thread (json-body-threads.ts), which gives back only what the schema reads. So is a transcript to create or
 * update a task, whose segments are checked, numbered, serialised and hashed there and handed over as the bytes to
 * store (prepared-members.ts): parsed here, it held the event loop 15-25 ms and its storage form 45-80 ms more. Any
 * other large body that names only what its schema does is parsed here, at about 1 ms per MB: a thread would give the
 * whole of it back to be parsed again.
 */
export function requestLimits(
  limits: RequestLimits,
  heavyWork: Semaphore,
  routes: () => readonly RouteBody[] = () => [],
  beforeSizeRefusal: BeforeSizeRefusal = async () => undefined,
) {
  const sizes = routeBodyLimits(limits, routes);
  const bodyThreads = new JsonBodyThreads();
  return new Elysia({ name: "request-limits" })
    .onRequest(refuseDeclaredSize(limits, heavyWork, sizes, beforeSizeRefusal))
    .onParse({ as: "global" }, boundedBodyParser({ limits, heavyWork, sizes, bodyThreads, beforeSizeRefusal }));
}
