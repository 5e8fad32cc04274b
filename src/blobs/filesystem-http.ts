import { attachmentDisposition } from "./content-disposition.ts";
import { BodyTooLargeError, IncompleteBodyError, PartBusyError } from "./file-io.ts";
import type { FileBlobStore } from "./filesystem.ts";
import { NoSuchUploadError, isValidBlobKey, type ByteRange } from "./port.ts";

/**
 * The embedded store's stand-in for S3's presigned URLs: GET of a signed object and PUT of a signed
 * part, answered from the raw Request so part bodies stream to disk without being buffered.
 */
export async function serveStorageRequest(store: FileBlobStore, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const at = url.pathname.indexOf("/storage/");
  if (at < 0) return json(404, "not found");
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.slice(at + "/storage/".length));
  } catch {
    return json(400, "invalid storage key");
  }
  // Checked before anything touches the disk: no "..", no absolute paths, no encoded tricks.
  if (!isValidBlobKey(key)) return json(400, "invalid storage key");

  if (request.method === "GET" || request.method === "HEAD") {
    const grant = store.verify("GET", key, url.searchParams);
    if (!grant || grant.uploadId !== undefined) return json(403, "invalid or expired signature");
    return serveObject(store, key, request, grant.downloadName);
  }
  if (request.method === "PUT") {
    const grant = store.verify("PUT", key, url.searchParams);
    if (!grant || grant.uploadId === undefined || grant.partNumber === undefined) return json(403, "invalid or expired signature");
    return receivePart(store, key, grant.uploadId, grant.partNumber, request, grant.size);
  }
  return json(405, "method not allowed", { allow: "GET, HEAD, PUT" });
}

async function serveObject(store: FileBlobStore, key: string, request: Request, downloadName: string | undefined): Promise<Response> {
  const headers = new Headers({
    "accept-ranges": "bytes",
    // Uploaded bytes are served from the API's own origin: never let a browser run them.
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
  });
  if (downloadName !== undefined) headers.set("content-disposition", attachmentDisposition(downloadName));

  const found = await store.locate(key);
  if (!found) return json(404, "no such object");
  let range: ByteRange | null = null;
  const rangeHeader = request.headers.get("range");
  if (rangeHeader) {
    const parsed = parseRange(rangeHeader, found.size);
    if (parsed === "unsatisfiable") {
      headers.set("content-range", `bytes */${found.size}`);
      return json(416, "range not satisfiable", headers);
    }
    range = parsed;
  }
  headers.set("content-type", found.contentType);
  const { start, end } = range ?? { start: 0, end: found.size - 1 };
  if (range) headers.set("content-range", `bytes ${start}-${end}/${found.size}`);
  headers.set("content-length", String(end - start + 1));
  // A file slice, not a stream: Bun then keeps Content-Length (also for HEAD, where it sends no
  // body) and uses sendfile.
  return new Response(Bun.file(found.path).slice(start, end + 1, found.contentType), { status: range ? 206 : 200, headers });
}

/**
 * One `bytes=` range (start-end, start-, or -suffix) resolved against the size; null means "ignore
 * the header and send everything" (several ranges, or a syntax we do not serve), as RFC 9110 allows.
 */
export function parseRange(header: string, size: number): ByteRange | null | "unsatisfiable" {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  if (start >= size) return "unsatisfiable";
  const end = match[2] === "" ? size - 1 : Number(match[2]);
  if (end < start) return null;
  return { start, end: Math.min(end, size - 1) };
}

async function receivePart(store: FileBlobStore, key: string, uploadId: string, partNumber: number, request: Request, boundSize?: number): Promise<Response> {
  const lengthHeader = request.headers.get("content-length");
  let declared: number | null = null;
  if (lengthHeader !== null) {
    if (!/^\d+$/.test(lengthHeader)) return json(400, "invalid Content-Length");
    declared = Number(lengthHeader);
    if (declared > store.maxPartBytes) return json(413, `a part may not exceed ${store.maxPartBytes} bytes`);
  }
  // A URL signed for a part of known size takes exactly that many bytes (a chunked body included).
  if (boundSize !== undefined) {
    if (declared !== null && declared !== boundSize) return json(400, `part ${partNumber} must be exactly ${boundSize} bytes, not ${declared}`);
    declared = boundSize;
  }
  const body = request.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  try {
    const part = await store.writePart(key, uploadId, partNumber, body, declared, lengthHeader !== null);
    return new Response(null, { status: 200, headers: { etag: part.etag } });
  } catch (error) {
    if (error instanceof NoSuchUploadError) return json(404, "no such upload");
    if (error instanceof PartBusyError) return json(409, error.message);
    if (error instanceof BodyTooLargeError) return json(413, `body larger than ${declared === null ? "the part limit" : "its Content-Length"}`);
    if (error instanceof IncompleteBodyError) return json(400, error.message);
    throw error;
  }
}

function json(status: number, message: string, headers?: Headers | Record<string, string>): Response {
  const all = new Headers(headers);
  all.set("content-type", "application/json");
  return new Response(JSON.stringify({ message }), { status, headers: all });
}
