import { chosenEncoding, compress, smallestCompressedBytes, type Encoding } from "./compressed-answers.ts";

/**
 * JSON answers made from bytes already serialized (the kept task lists and details, versioned-cache.ts), finished
 * when they are made: the last layer (last-resort.ts) need not inspect them to know they may be compressed, nor
 * read their bodies, and each body is compressed once per encoding, not once per request. About 2 µs of a kept
 * read's 30.
 */

const jsonType = "application/json;charset=utf-8"; // as Elysia sends objects

/** Each known answer's body. */
const knownBodies = new WeakMap<Response, Uint8Array>();

/**
 * Each body's compressed forms, made the first time a client asks for one; they go with the body (outside the kept
 * answers' byte bound, which they add about a fifth to).
 */
const compressedForms = new WeakMap<Uint8Array, Partial<Record<Encoding, Uint8Array>>>();

/**
 * A 200 JSON answer of `body`, with nosniff, which the last layer would add (page-headers.ts; never an HTML page):
 * the template each request's answer is cloned from (`answerFrom`). `body` must not change afterwards.
 */
export function knownJsonAnswer(body: Uint8Array): Response {
  const response = new Response(body, { headers: { "content-type": jsonType, "x-content-type-options": "nosniff" } });
  knownBodies.set(response, body);
  return response;
}

/**
 * A request's copy of a known answer, to add its own headers to (the rate limit's, the ETag). Cloned, not made anew:
 * a Response made with six headers given as an object cost twice as much as a clone given the three that differ
 * (1.07 µs against 0.5, scratch measurement); the body is shared, never copied.
 */
export function answerFrom(template: Response): Response {
  const body = knownBodies.get(template);
  if (body === undefined) throw new Error("answerFrom: not a known answer");
  // Bun's types declare clone() as returning undici's Response; it returns Bun's own.
  const answer = template.clone() as Response;
  knownBodies.set(answer, body);
  return answer;
}

/**
 * `answer` as it is sent when it is a known answer, as compressed-answers.ts would send it: with COMPRESSION on,
 * compressed as the request accepts when the body is at least 1 KiB, and saying `Vary: Accept-Encoding` either way.
 * Null for any other answer, which the last layer finishes the general way.
 */
export function sentKnownAnswer(answer: Response, request: Request, compression: boolean): Response | null {
  const body = knownBodies.get(answer);
  if (body === undefined) return null;
  if (!compression || request.method === "HEAD") return answer;
  const encoding = body.byteLength < smallestCompressedBytes ? null : chosenEncoding(request);
  if (encoding === null) {
    answer.headers.append("vary", "Accept-Encoding");
    return answer;
  }
  let forms = compressedForms.get(body);
  if (forms === undefined) compressedForms.set(body, (forms = {}));
  const sent = (forms[encoding] ??= compress(body, encoding));
  const headers = new Headers(answer.headers);
  headers.append("vary", "Accept-Encoding");
  headers.set("content-encoding", encoding);
  headers.set("content-length", String(sent.byteLength));
  return new Response(sent, { status: answer.status, statusText: answer.statusText, headers });
}
