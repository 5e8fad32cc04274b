import { JsonShapeScanner, type JsonShapeLimits } from "./json-shape.ts";
import { keepRawBody } from "./raw-body.ts";
import { keepPreparedMember } from "./prepared-members.ts";
import { idempotencyKeyHeader } from "./idempotency-key.ts";
import { parseJsonBody } from "./json-body.ts";
import type { JsonBodyThreads } from "./json-body-threads.ts";
import type { RoutePlan } from "./body-plans.ts";
import { holdsHeavyWork, markReadWhole, moveHeavyWork, waitForHeavyWork } from "./heavy-work-slots.ts";
import { carryRequestContext } from "./correlation.ts";
import type { Semaphore } from "../core/semaphore.ts";
import { inTurnShare } from "../core/turn-share.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import type { RequestContext } from "./request-origin.ts";
import { mediaTypeOf, tooLarge, unlimited, type RequestLimits, type RouteBodyLimits } from "./route-body-limits.ts";

/**
 * Told of a request about to be refused for its size, before its route's hooks could see it: the sign-in routes
 * count it as an attempt (sign-in-rules.ts), and throw a 429 instead once their limit is spent.
 */
export type BeforeSizeRefusal = (context: RequestContext, path: string) => Promise<void>;

/** What the parser is given of a request: Elysia's context, whose request a streamed form replaces with a copy. */
type ParseContext = { request: Request; server: RequestContext["server"] };

type Reader = { cancel(): Promise<void> };

/** One body being read: its request and route, and what to do as it passes a limit. */
type BodyRead = {
  context: ParseContext;
  request: Request;
  path: string;
  limit: number;
  /** Past the ordinary limit a streamed body waits for its heavy-work slot, as a declared one did before a byte was read. */
  passedOrdinaryLimit(bytes: number): Promise<void>;
  refuseUnread(reader: Reader, error: DomainError): Promise<never>;
};

export type BoundedBodyParserOptions = {
  limits: RequestLimits;
  heavyWork: Semaphore;
  sizes: RouteBodyLimits;
  bodyThreads: JsonBodyThreads;
  beforeSizeRefusal: BeforeSizeRefusal;
};

/** The global body parser of request-limits.ts: every body read once, as it arrives, within its route's limits. */
export function boundedBodyParser({ limits, heavyWork, sizes, bodyThreads, beforeSizeRefusal }: BoundedBodyParserOptions) {
  // Two parameters, as Elysia calls a parser: Elysia reads a hook's source to learn what a route uses, finds no one
  // context parameter here, and so does not take this hook as using everything (cookies included) on every route.
  return async (context: ParseContext, contentType: string): Promise<unknown> => {
    const { request } = context;
    if (request.body === null) return;
    const path = new URL(request.url, "http://localhost").pathname;
    if (unlimited(path)) return;
    const streamed = request.headers.get("content-length") === null;
    // Media types are case-insensitive: `Application/JSON` is JSON too (it was refused as no body at all).
    const mediaType = mediaTypeOf(contentType);
    const read: BodyRead = {
      context,
      request,
      path,
      limit: sizes.limitOf(request.method, path, mediaType),
      passedOrdinaryLimit: async (bytes) => {
        if (streamed && bytes > limits.bodyBytes && !holdsHeavyWork(request)) await waitForHeavyWork(request, heavyWork, context.server);
      },
      // A refusal before the body is read whole reaches the client: the reader is let go, and Bun reads and drops
      // the rest of the body after the answer, keeping the connection (bounded by a Content-Length; a chunked
      // body for as long as the client sends it). Never `Connection: close` on such an answer: Bun then closes
      // with the rest unread, the kernel resets the connection, and a client still sending lost the answer
      // (measured: 12 MB sent chunked to a 1 MiB route, nothing came back). test/http/early-refusals.e2e.test.ts.
      refuseUnread: async (reader, error) => {
        await reader.cancel().catch(() => undefined);
        if (error.status === 413) await beforeSizeRefusal({ request, server: context.server }, path);
        throw error;
      },
    };
    if (!mediaType.includes("json")) {
      if (!streamed) return; // bounded by its Content-Length in onRequest
      return readStreamedForm(read);
    }
    const { parts, chunks, bytes, memberNames } = await readJsonText(read, sizes.shapeOf(request.method, path), limits.bodyBytes);
    if (bytes > limits.bodyBytes) {
      markReadWhole(request);
      const route: RoutePlan | null = sizes.planOf(request.method, path);
      // A member the route makes ready off the main thread (a transcript's segments): the route gets the body without it.
      if (route?.preparer) {
        const fingerprint = request.headers.has(idempotencyKeyHeader) ? { method: request.method, path } : undefined;
        const { body, prepared } = await bodyThreads.parse(chunks, route.plan, { preparer: route.preparer, fingerprint });
        if (prepared) keepPreparedMember(request, prepared);
        return body;
      }
      // A member its route's schema does not name: parsed on a thread, which gives back only what the schema reads.
      if (route?.names && [...memberNames].some((name) => !route.names!.has(name))) return (await bodyThreads.parse(chunks, route.plan)).body;
    }
    const text = parts === null ? new TextDecoder().decode(Buffer.concat(chunks)) : parts.length === 1 ? parts[0]! : parts.join("");
    if (bytes <= limits.bodyBytes) keepRawBody(request, text);
    // Empty: left to Elysia's own parser, which finds no body (an optional body stays absent, a required one is 400).
    if (text.trim() === "") return undefined;
    return parseJsonBody(text);
  };
}

/** A streamed form, read up to its limit and handed to Elysia's own parser as a copy of known length. */
async function readStreamedForm({ context, request, limit, passedOrdinaryLimit, refuseUnread }: BodyRead): Promise<undefined> {
  const body = await readUpTo(request, limit);
  if (!(body instanceof Uint8Array)) return refuseUnread(body.reader, new DomainError(413, tooLarge(limit)));
  await passedOrdinaryLimit(body.byteLength);
  // Elysia's own parser (forms: files, repeated fields) reads `context.request`: it gets a copy of known length.
  const sized = new Request(request.url, { method: request.method, headers: request.headers, body });
  carryRequestContext(request, sized);
  moveHeavyWork(request, sized);
  context.request = sized;
  return undefined;
}

/**
 * A JSON body, checked as it arrives: UTF-8 (422), within its byte limit (413) and within its shape's bounds (422),
 * refused as soon as it breaks one, unread rest and all. The bytes in the chunks they arrived in (`chunks`), and, while
 * they are at most `textUpTo` bytes, their text in the pieces it was read as (`parts`; null past it: a larger body is
 * parsed from its bytes, on a thread).
 */
async function readJsonText({ request, limit, passedOrdinaryLimit, refuseUnread }: BodyRead, shape: JsonShapeLimits, textUpTo: number) {
  const scanner = new JsonShapeScanner(shape);
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const reader = request.body!.getReader();
  let parts: string[] | null = [];
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  // Thrown from the parser, these reach the error handler as a ParseError's cause (see error-handler.ts).
  const reject = (error: DomainError): Promise<never> => refuseUnread(reader, error);
  for (;;) {
    const { value, done } = await reader.read();
    if (!done) {
      bytes += value.byteLength;
      chunks.push(value);
    }
    if (bytes > limit) return reject(new DomainError(413, tooLarge(limit)));
    await passedOrdinaryLimit(bytes);
    const check = (): { text: string } | { problem: ValidationFailedError } => {
      let text: string;
      try {
        text = decoder.decode(done ? undefined : value, { stream: !done });
      } catch {
        return { problem: new ValidationFailedError({ body: ["The request body is not valid UTF-8."] }) };
      }
      const violation = scanner.feed(text);
      return violation ? { problem: new ValidationFailedError({ body: [violation.message] }, violation.message) } : { text };
    };
    // Past the ordinary limit a body is heavy work: its chunks are checked in the turn's share of background work
    // (turn-share.ts), so that four clients' 24 MiB bodies arriving at once do not hold the event loop together.
    const checked = bytes > textUpTo ? await inTurnShare(check) : check();
    if ("problem" in checked) return reject(checked.problem);
    const { text } = checked;
    if (bytes > textUpTo) parts = null;
    else parts?.push(text);
    if (done) break;
  }
  return { parts, chunks, bytes, memberNames: scanner.memberNames };
}

/** The whole body of a request, or, as soon as it passes `limit` bytes, its reader with the rest unread (to let go). */
async function readUpTo(request: Request, limit: number): Promise<Uint8Array | { reader: Reader }> {
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      return { reader };
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, bytes);
}
