import { Elysia } from "elysia";
import { errorJson } from "./error-handler.ts";
import { JsonShapeScanner, type JsonShapeLimits } from "./json-shape.ts";
import { keepRawBody } from "./raw-body.ts";
import { parseJsonBody } from "./json-body.ts";
import { JsonBodyThreads } from "./json-body-threads.ts";
import { routePlans, type RouteBody } from "./body-plans.ts";
import { isOpenAiPath, openAiErrorJson } from "./openai-errors.ts";
import { holdHeavyWork, holdsHeavyWork, markReadWhole, moveHeavyWork } from "./heavy-work-slots.ts";
import { carryRequestContext } from "./correlation.ts";
import type { Semaphore } from "../core/semaphore.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import { schema } from "../config/schema.ts";
import type { RequestContext } from "./request-origin.ts";

export type RequestLimits = {
  /** Most bytes a request body may have (BODY_LIMIT_BYTES, default 1 MiB). */
  bodyBytes: number;
  /** For the two requests that carry a whole transcript, create and update a task (TRANSCRIPT_BODY_LIMIT_BYTES, default 24 MiB: a 10 MB `text` edit escaped as JSON). */
  transcriptBodyBytes: number;
  /** Most nesting of arrays and objects in a JSON body (JSON_MAX_DEPTH, default 32; our deepest valid body has 4). */
  jsonDepth: number;
  /** Most values in a transcript body (JSON_MAX_VALUES, default 2,000,000: 100,000 segments of 20 values each). */
  transcriptJsonValues: number;
  /** The audio file `POST /v1/audio/transcriptions` takes (OPENAI_COMPAT_FILE_LIMIT_BYTES, default 25 MiB, OpenAI's own limit). */
  openAiFileBytes: number;
};

/** The defaults are the configuration schema's (src/config/settings/limits.ts), so the two cannot differ. */
export const defaultRequestLimits: RequestLimits = {
  bodyBytes: schema.BODY_LIMIT_BYTES.fallback,
  transcriptBodyBytes: schema.TRANSCRIPT_BODY_LIMIT_BYTES.fallback,
  jsonDepth: schema.JSON_MAX_DEPTH.fallback,
  transcriptJsonValues: schema.JSON_MAX_VALUES.fallback,
  openAiFileBytes: schema.OPENAI_COMPAT_FILE_LIMIT_BYTES.fallback,
};

/** Every other JSON body is small: its largest array is a bulk request's 1,000 ids. */
const ordinaryShape = { arrayItems: 1000, values: 20_000 };
/** No body has an object of more than a dozen members, or more than a few dozen names (json-shape.ts: why they are bounded). */
const nameLimits = { objectMembers: 1000, memberNames: 1000 };
/** A transcript's largest array is its 100,000 segments (or one segment's 100,000 tokens). */
const transcriptArrayItems = 100_000;

/** Room beyond a schema's largest valid body for members it does not name, which are ignored (docs/api.md). */
const ignoredMembersBytes = 64 * 1024;

/** Routes whose body is not limited here: storage PUTs stream upload parts straight to disk. */
const unlimited = (path: string) => path.startsWith("/storage/");
/** `PUT /api/user` takes an avatar of up to 5 MB as a form: it gets that, plus room for the form around it. */
const avatarBytes = 5 * 1024 * 1024 + 64 * 1024;
/** Room for the form around a file: its part headers and the other fields (model, language, prompt, ...). */
const formBytes = 64 * 1024;
const openAiFileRoute = (method: string, path: string) => method === "POST" && path === "/v1/audio/transcriptions";
const transcriptRoute = (method: string, path: string) =>
  (method === "POST" && path === "/api/tasks") || (method === "PATCH" && /^\/api\/tasks\/[^/]+$/.test(path) && !path.endsWith("/bulk"));
const avatarRoute = (method: string, path: string) => method === "PUT" && path === "/api/user";

/** The routes that take a body over the ordinary limit: transcripts, `PUT /api/user` (an avatar) and OpenAI's file uploads. */
export const takesLargeBody = (method: string, path: string) => transcriptRoute(method, path) || avatarRoute(method, path) || openAiFileRoute(method, path);

/**
 * Bounds every request body before anything parses it. Over its route's byte limit is 413: by
 * Content-Length before a byte is read, or while it streams. A body without a length (chunked, as the
 * official OpenAI SDK sends a file stream) is accepted and counted as it arrives: a JSON one like any other,
 * a form read up to its limit and handed to Elysia's form parser as a copy of known length (413 as soon as
 * the limit is passed, nothing kept beyond it). A JSON body is read once, as it arrives: it must be UTF-8 (422, `body`), and its shape within
 * json-shape.ts's bounds (422, answered as soon as the text breaks one, unread rest and all); only then
 * is it parsed, once, and handed to validation. Deep JSON made validation recurse for seconds (a 60 KB
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
 * a thread (json-body-threads.ts), which gives back only what the schema reads. A large body that names only
 * what the schema does parses at about 1 ms per MB here (a 24 MiB transcript in 15 ms), and is not worth a
 * thread's memory: parsed there too, the thread's heap came on top of this one's (four clients sending maximal
 * transcripts for 3 s: 715 MiB at the peak instead of 524).
 */
/**
 * Told of a request about to be refused for its size, before its route's hooks could see it: the sign-in routes
 * count it as an attempt (sign-in-rules.ts), and throw a 429 instead once their limit is spent.
 */
export type BeforeSizeRefusal = (context: RequestContext, path: string) => Promise<void>;

export function requestLimits(
  limits: RequestLimits,
  heavyWork: Semaphore,
  routes: () => readonly RouteBody[] = () => [],
  beforeSizeRefusal: BeforeSizeRefusal = async () => undefined,
) {
  const bodyThreads = new JsonBodyThreads();
  const planOf = routePlans(routes);
  // A route whose schema bounds its body's size takes no more than that (twice, for whitespace, plus room for
  // members it ignores): a 1 MiB name to POST /api/register is refused by its Content-Length before a byte is
  // read, where reading, decoding and parsing it held the event loop for everyone else (bench/hostile-load).
  const limitOf = (method: string, path: string) => {
    const largest = planOf(method, path)?.largestBody;
    const routeLimit = largest == null ? Number.POSITIVE_INFINITY : 2 * largest + ignoredMembersBytes;
    return Math.min(routeLimit, sizeLimitOf(method, path));
  };
  const sizeLimitOf = (method: string, path: string) =>
    transcriptRoute(method, path)
      ? limits.transcriptBodyBytes
      : avatarRoute(method, path)
        ? Math.max(limits.bodyBytes, avatarBytes)
        : openAiFileRoute(method, path)
          ? Math.max(limits.bodyBytes, limits.openAiFileBytes + formBytes)
          : limits.bodyBytes;
  const shapeOf = (method: string, path: string): JsonShapeLimits =>
    transcriptRoute(method, path)
      ? { depth: limits.jsonDepth, arrayItems: transcriptArrayItems, ...nameLimits, values: limits.transcriptJsonValues }
      : { depth: limits.jsonDepth, ...nameLimits, ...ordinaryShape };
  const tooLarge = (limit: number) => `The request body is too large: this endpoint takes at most ${limit} bytes.`;

  return new Elysia({ name: "request-limits" })
    .onRequest(async ({ request, server }) => {
      // Bun builds request.url from the Host: with a path, user info or an open bracket in it, the URL is relative or
      // none at all, and nothing after this could read it. HTTP's answer to a malformed Host is 400. (Without a Host,
      // as HTTP/1.0 health probes send them, the URL is relative too; those keep working as they did.)
      if (request.headers.has("host") && !URL.canParse(request.url)) return errorJson(400, { message: "The Host header is not a valid host name." });
      if (request.method === "GET" || request.method === "HEAD" || request.body === null) return;
      const path = new URL(request.url, "http://localhost").pathname;
      if (unlimited(path)) return;
      const limit = limitOf(request.method, path);
      const declared = Number(request.headers.get("content-length") ?? NaN);
      // The OpenAI-compatible routes answer in OpenAI's error shape (openai-errors.ts).
      const refuse = (status: number, message: string) => (isOpenAiPath(path) ? openAiErrorJson(status, message) : errorJson(status, { message }));
      // The rest is Bun's to read and drop after the answer: see `refuseUnread` below.
      if (declared > limit) {
        await beforeSizeRefusal({ request, server }, path);
        return refuse(413, tooLarge(limit));
      }
      if (declared > limits.bodyBytes) holdHeavyWork(request, await heavyWork.acquire());
    })
    .onParse({ as: "global" }, async (context, contentType) => {
      const { request } = context;
      if (request.body === null) return;
      const path = new URL(request.url, "http://localhost").pathname;
      if (unlimited(path)) return;
      const limit = limitOf(request.method, path);
      const streamed = request.headers.get("content-length") === null;
      // Past the ordinary limit a streamed body waits for its heavy-work slot, as a declared one did before a byte was read.
      const passedOrdinaryLimit = async (bytes: number) => {
        if (streamed && bytes > limits.bodyBytes && !holdsHeavyWork(request)) holdHeavyWork(request, await heavyWork.acquire());
      };
      // A refusal before the body is read whole reaches the client: the reader is let go, and Bun reads and drops
      // the rest of the body after the answer, keeping the connection (bounded by a Content-Length; a chunked
      // body for as long as the client sends it). Never `Connection: close` on such an answer: Bun then closes
      // with the rest unread, the kernel resets the connection, and a client still sending lost the answer
      // (measured: 12 MB sent chunked to a 1 MiB route, nothing came back). test/http/early-refusals.e2e.test.ts.
      const refuseUnread = async (reader: { cancel(): Promise<void> }, error: DomainError): Promise<never> => {
        await reader.cancel().catch(() => undefined);
        if (error.status === 413) await beforeSizeRefusal({ request, server: context.server }, path);
        throw error;
      };
      if (!contentType.includes("json")) {
        if (!streamed) return; // bounded by its Content-Length in onRequest
        const body = await readUpTo(request, limit);
        if (!(body instanceof Uint8Array)) return refuseUnread(body.reader, new DomainError(413, tooLarge(limit)));
        await passedOrdinaryLimit(body.byteLength);
        // Elysia's own parser (forms: files, repeated fields) reads `context.request`: it gets a copy of known length.
        const sized = new Request(request.url, { method: request.method, headers: request.headers, body });
        carryRequestContext(request, sized);
        moveHeavyWork(request, sized);
        context.request = sized;
        return;
      }
      const scanner = new JsonShapeScanner(shapeOf(request.method, path));
      const decoder = new TextDecoder("utf-8", { fatal: true });
      const reader = request.body.getReader();
      const parts: string[] = [];
      let bytes = 0;
      // Thrown from the parser, these reach the error handler as a ParseError's cause (see error-handler.ts).
      const reject = (error: DomainError): Promise<never> => refuseUnread(reader, error);
      for (;;) {
        const { value, done } = await reader.read();
        let text: string;
        try {
          text = decoder.decode(done ? undefined : value, { stream: !done });
        } catch {
          return reject(new ValidationFailedError({ body: ["The request body is not valid UTF-8."] }));
        }
        if (!done) bytes += value.byteLength;
        if (bytes > limit) return reject(new DomainError(413, tooLarge(limit)));
        await passedOrdinaryLimit(bytes);
        const violation = scanner.feed(text);
        if (violation) return reject(new ValidationFailedError({ body: [violation.message] }, violation.message));
        parts.push(text);
        if (done) break;
      }
      if (bytes > limits.bodyBytes) {
        markReadWhole(request);
        // A member its route's schema does not name: parsed on a thread, which gives back only what the schema reads.
        const route = planOf(request.method, path);
        if (route?.names && [...scanner.memberNames].some((name) => !route.names!.has(name))) return bodyThreads.parse(parts, route.plan);
      }
      const text = parts.length === 1 ? parts[0]! : parts.join("");
      if (bytes <= limits.bodyBytes) keepRawBody(request, text);
      // Empty: left to Elysia's own parser, which finds no body (an optional body stays absent, a required one is 400).
      if (text.trim() === "") return undefined;
      return parseJsonBody(text);
    });
}

/** The whole body of a request, or, as soon as it passes `limit` bytes, its reader with the rest unread (to let go). */
async function readUpTo(request: Request, limit: number): Promise<Uint8Array | { reader: { cancel(): Promise<void> } }> {
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
