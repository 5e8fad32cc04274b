import { Elysia } from "elysia";
import { errorJson } from "./error-handler.ts";

export type RequestLimits = {
  /** Most bytes a request body may have (BODY_LIMIT_BYTES, default 1 MiB). */
  bodyBytes: number;
  /** For the two requests that carry a whole transcript, create and update a task (TRANSCRIPT_BODY_LIMIT_BYTES, default 24 MiB: a 10 MB `text` edit escaped as JSON). */
  transcriptBodyBytes: number;
  /** Most nesting of arrays and objects in a JSON body (JSON_MAX_DEPTH, default 32; our deepest valid body has 4). */
  jsonDepth: number;
};

export const defaultRequestLimits: RequestLimits = { bodyBytes: 1024 * 1024, transcriptBodyBytes: 24 * 1024 * 1024, jsonDepth: 32 };

/** Routes whose body is not limited here: storage PUTs stream upload parts straight to disk. */
const unlimited = (path: string) => path.startsWith("/storage/");
/** `PUT /api/user` takes an avatar of up to 5 MB as a form: it gets that, plus room for the form around it. */
const avatarBytes = 5 * 1024 * 1024 + 64 * 1024;
const transcriptRoute = (method: string, path: string) => (method === "POST" && path === "/api/tasks") || (method === "PATCH" && /^\/api\/tasks\/[^/]+$/.test(path) && !path.endsWith("/bulk"));

/** The depth of the deepest array or object in JSON text, without parsing it (strings are skipped). */
export function jsonDepth(text: string, stopAbove: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > deepest && (deepest = depth) > stopAbove) return deepest;
    } else if (c === 125 || c === 93) depth--;
  }
  return deepest;
}

/**
 * Bounds every request body before anything parses it: over its route's limit is 413 (by Content-Length,
 * before a byte is read; a body without one is 411), and JSON nested deeper than `jsonDepth` is 422. Deep JSON
 * made validation recurse for seconds (a 60 KB body kept the server busy 7.8 s), and unbounded bodies
 * took gigabytes of memory.
 */
export function requestLimits(limits: RequestLimits) {
  return new Elysia({ name: "request-limits" }).onRequest(async ({ request }) => {
    if (request.method === "GET" || request.method === "HEAD" || request.body === null) return;
    const path = new URL(request.url).pathname;
    if (unlimited(path)) return;
    const limit = transcriptRoute(request.method, path) ? limits.transcriptBodyBytes : request.method === "PUT" && path === "/api/user" ? Math.max(limits.bodyBytes, avatarBytes) : limits.bodyBytes;
    const tooLarge = () => errorJson(413, { message: `The request body is too large: this endpoint takes at most ${limit} bytes.` });
    const declared = Number(request.headers.get("content-length") ?? NaN);
    const isJson = (request.headers.get("content-type") ?? "").includes("json");
    // A body of unknown length (chunked) could only be bounded by reading it twice over; every client
    // that sends JSON or a form knows its length.
    if (!Number.isFinite(declared) && (request.headers.get("transfer-encoding") ?? "").includes("chunked")) {
      return errorJson(411, { message: "Send the request body with a Content-Length header." });
    }
    if (declared > limit) return tooLarge();
    // Without either header the body is already in memory (a Request made in process): measured below.
    if (Number.isFinite(declared) && !isJson) return;
    const text = await request.clone().text();
    if (Buffer.byteLength(text) > limit) return tooLarge();
    if (isJson && jsonDepth(text, limits.jsonDepth) > limits.jsonDepth) {
      const message = `The request body is nested too deeply: at most ${limits.jsonDepth} levels of arrays and objects.`;
      return errorJson(422, { message, errors: { body: [message] } });
    }
  });
}
