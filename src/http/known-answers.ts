import { chosenEncoding, compress, smallestCompressedBytes, type Encoding } from "./compressed-answers.ts";

/**
 * JSON answers made from bytes already serialized (the kept task lists and details, versioned-cache.ts), finished
 * when they are made: they carry the headers the last layer (last-resort.ts) gives every answer of theirs, so it
 * neither inspects nor reads them, and each body is compressed once per encoding, not once per request. About
 * 2 µs of a kept read's 30 (issue 33's per-request cost).
 */

const jsonType = "application/json;charset=utf-8"; // as Elysia sends objects

/** Each known answer's body. */
const knownBodies = new WeakMap<Response, Uint8Array>();

/** Each body's compressed forms, made the first time a client asks for one; they go with the body. */
const compressedForms = new WeakMap<Uint8Array, Partial<Record<Encoding, Uint8Array>>>();

/**
 * A 200 JSON answer of `body` with `headers`, and what the last layer would add: nosniff (page-headers.ts; never an
 * HTML page), and `Vary: Accept-Encoding`, as it may be compressed (compressed-answers.ts; said even with
 * COMPRESSION=off, when the proxy that compresses varies on it too). `body` must not change afterwards.
 */
export function knownJsonAnswer(body: Uint8Array, headers: Record<string, string>): Response {
  headers["content-type"] = jsonType;
  headers["x-content-type-options"] = "nosniff";
  headers.vary = "Accept-Encoding";
  const response = new Response(body, { headers });
  knownBodies.set(response, body);
  return response;
}

/**
 * `answer` as it is sent when it is a known answer: compressed as the request accepts (when `compression` is on, the
 * body is at least 1 KiB, and the request is no HEAD), else as it is. Null for any other answer, which the last layer
 * finishes the general way.
 */
export function sentKnownAnswer(answer: Response, request: Request, compression: boolean): Response | null {
  const body = knownBodies.get(answer);
  if (body === undefined) return null;
  if (!compression || request.method === "HEAD" || body.byteLength < smallestCompressedBytes) return answer;
  const encoding = chosenEncoding(request);
  if (encoding === null) return answer;
  let forms = compressedForms.get(body);
  if (forms === undefined) compressedForms.set(body, (forms = {}));
  const sent = (forms[encoding] ??= compress(body, encoding));
  const headers = new Headers(answer.headers);
  headers.set("content-encoding", encoding);
  headers.set("content-length", String(sent.byteLength));
  return new Response(sent, { status: answer.status, statusText: answer.statusText, headers });
}
