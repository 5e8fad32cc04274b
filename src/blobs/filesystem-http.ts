import { attachmentDisposition } from "./content-disposition.ts";
import { BodyTooLargeError, IncompleteBodyError, PartBusyError } from "./file-io.ts";
import type { FilePartWriter } from "./filesystem-parts.ts";
import { NoSuchUploadError, isValidBlobKey, type BlobStore } from "./port.ts";
import { serveBlob } from "./serve.ts";
import type { SignedGrant } from "./signing.ts";

/** What answering its signed URLs needs of the embedded store (filesystem.ts), which hands itself over. */
export type SignedStorage = BlobStore & {
  /** Largest part a PUT may send. */
  readonly maxPartBytes: number;
  /** Receives the parts PUT to signed URLs. */
  readonly parts: Pick<FilePartWriter, "write">;
  /** The grant a signed request carries, or null when it is forged, tampered with or expired. */
  verify(method: "GET" | "PUT", key: string, query: URLSearchParams): SignedGrant | null;
};

/**
 * The embedded store's stand-in for S3's presigned URLs: GET of a signed object and PUT of a signed
 * part, answered from the raw Request so part bodies stream to disk without being buffered.
 */
export async function serveStorageRequest(store: SignedStorage, request: Request): Promise<Response> {
  // The base: without a Host (HTTP/1.0) the request's URL is relative.
  const url = new URL(request.url, "http://localhost");
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

async function serveObject(store: SignedStorage, key: string, request: Request, downloadName: string | undefined): Promise<Response> {
  const headers = new Headers({
    // Uploaded bytes are served from the API's own origin: never let a browser run them.
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
  });
  if (downloadName !== undefined) headers.set("content-disposition", attachmentDisposition(downloadName));
  return (await serveBlob(store, key, request, headers)) ?? json(404, "no such object");
}

async function receivePart(store: SignedStorage, key: string, uploadId: string, partNumber: number, request: Request, boundSize?: number): Promise<Response> {
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
    const part = await store.parts.write(key, uploadId, partNumber, body, declared, lengthHeader !== null);
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
