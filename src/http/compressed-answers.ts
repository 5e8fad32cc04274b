import { brotliCompressSync, constants } from "node:zlib";
import { accepts } from "./static-assets.ts";

/** Smaller answers gain less than their compression costs (and a packet holds them anyway). */
export const smallestCompressedBytes = 1024;

/** The API's own answers: JSON, and plain text (metrics, OpenAI's `text` format). Downloads are attachments, left as they are. */
const compressible = /^(application\/json|text\/plain)\b/i;

/**
 * Brotli's quality 1 and gzip's level 1: on a page of 25 tasks (5 KB) 8 and 4 µs, 422 and 546 bytes; brotli's 4 took
 * 20 µs for 382 bytes and gzip's default 11 µs for 434.
 */
const brotliParams = { [constants.BROTLI_PARAM_QUALITY]: 1 };

/**
 * Whether an answer is one of the API's JSON or text answers a client may get compressed: not an attachment
 * (exports, media), not already encoded (the web app's assets and pages), not a partial or empty one, and not one
 * its sender asked intermediaries to leave alone (`no-transform`).
 */
function mayCompress(response: Response, request: Request): boolean {
  if (request.method === "HEAD" || response.body === null) return false;
  if (response.status === 204 || response.status === 206 || response.status === 304) return false;
  const headers = response.headers;
  if (!compressible.test(headers.get("content-type") ?? "")) return false;
  if (headers.has("content-encoding") || headers.has("content-disposition")) return false;
  return !(headers.get("cache-control") ?? "").includes("no-transform");
}

/**
 * The encoding to send: gzip where the client takes it (every browser and HTTP client does), else brotli, else none.
 * Gzip first because it costs half of what brotli does per answer, for a fifth more bytes on a page of tasks.
 */
export function chosenEncoding(request: Request): Encoding | null {
  const acceptEncoding = request.headers.get("accept-encoding");
  if (!acceptEncoding) return null;
  if (accepts(acceptEncoding, "gzip")) return "gzip";
  return accepts(acceptEncoding, "br") ? "br" : null;
}

/**
 * The answer compressed as the request accepts (gzip, else br) when it is JSON or plain text of at least 1 KiB;
 * otherwise the answer itself. Every compressible answer says `Vary: Accept-Encoding`, compressed or not, so a
 * cache keeps the two apart. The ETag stays: it names the task's revision, which If-Match compares, whatever
 * the encoding.
 */
export function compressedAnswer(response: Response, request: Request): Response | Promise<Response> {
  if (!mayCompress(response, request)) return response;
  const encoding = chosenEncoding(request);
  if (encoding === null || declaredSmall(response)) return varied(response);
  return compressed(response, encoding);
}

/** A length that says the answer is small spares reading it. */
function declaredSmall(response: Response): boolean {
  const length = response.headers.get("content-length");
  return length !== null && Number(length) < smallestCompressedBytes;
}

/** The answer as it is, saying that it would have been sent otherwise to a client that takes an encoding. */
function varied(response: Response): Response {
  try {
    response.headers.append("vary", "Accept-Encoding");
    return response;
  } catch {
    // Headers that cannot change (a fetched Response passed on): a copy that says so.
    const headers = new Headers(response.headers);
    headers.append("vary", "Accept-Encoding");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}

export type Encoding = "br" | "gzip";

export const compress = (bytes: Uint8Array, encoding: Encoding): Uint8Array =>
  encoding === "br" ? brotliCompressSync(bytes, { params: brotliParams }) : Bun.gzipSync(overArrayBuffer(bytes), { level: 1 });

/** Bun's gzip (faster than node:zlib's) takes bytes over a plain ArrayBuffer only, which ours are: a view of them, else a copy. */
const overArrayBuffer = (bytes: Uint8Array): Uint8Array<ArrayBuffer> =>
  bytes.buffer instanceof ArrayBuffer ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : new Uint8Array(bytes);

async function compressed(response: Response, encoding: Encoding): Promise<Response> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  const headers = new Headers(response.headers);
  headers.append("vary", "Accept-Encoding");
  if (bytes.byteLength < smallestCompressedBytes) {
    return new Response(bytes, { status: response.status, statusText: response.statusText, headers });
  }
  const body = compress(bytes, encoding);
  headers.set("content-encoding", encoding);
  headers.set("content-length", String(body.byteLength));
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
