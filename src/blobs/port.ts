/**
 * Media and export files. Both adapters (files under DATA_DIR with URLs the API signs and serves;
 * S3 with real presigned URLs) pass test/contracts/blobs.contract.ts.
 *
 * Keys are relative paths of `[A-Za-z0-9._-]` segments separated by `/` (no `..`, no leading `/`).
 */
export type BlobInfo = { size: number; contentType: string };

export type ByteRange = { start: number; end: number }; // inclusive, like HTTP Range

export type BlobRead = BlobInfo & {
  body: ReadableStream<Uint8Array>;
  /** The range served, when one was asked for. */
  range?: ByteRange;
};

export type SignedRequest = { url: string; method: "GET" | "PUT"; headers: Record<string, string> };

export type UploadedPart = { partNumber: number; size: number; etag: string };

export interface BlobStore {
  put(key: string, body: Uint8Array | ReadableStream<Uint8Array> | Blob, options: { contentType: string }): Promise<BlobInfo>;
  /** null when there is no such object. `range` is clamped to the object; start beyond the end is null. */
  get(key: string, options?: { range?: ByteRange }): Promise<BlobRead | null>;
  head(key: string): Promise<BlobInfo | null>;
  /** Deleting a missing object is not an error. */
  delete(key: string): Promise<void>;
  /**
   * A URL anyone can GET until it expires; `downloadName` sets Content-Disposition. `origin`: where the caller
   * reached the API (src/http/request-origin.ts), for stores whose URLs point back at it (the embedded one); S3's
   * point at S3 and ignore it.
   */
  signGet(key: string, options: { expiresInSeconds: number; downloadName?: string; origin?: string }): Promise<SignedRequest>;

  /** Multipart upload: the client PUTs each part to a signed URL, then the server completes it. */
  /**
   * `partSize`, when given, promises parts 1..n of exactly that size (the last may be shorter): the
   * embedded store then writes parts in place and completes without copying; S3 ignores it.
   */
  createMultipartUpload(key: string, options: { contentType: string; partSize?: number }): Promise<{ uploadId: string }>;
  /**
   * `contentLength`, when given, is bound into the URL: a PUT of any other length is refused (by the
   * signature on S3, where Content-Length becomes a signed header; by the API on the embedded store). `origin` as
   * for signGet.
   */
  signUploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    options: { expiresInSeconds: number; contentLength?: number; origin?: string },
  ): Promise<SignedRequest>;
  /** Parts received so far, by part number; rejects with NoSuchUploadError for an unknown or finished upload. */
  listParts(key: string, uploadId: string): Promise<UploadedPart[]>;
  /** Joins the listed parts in order into the object `key`; rejects with NoSuchUploadError as above. */
  completeMultipartUpload(key: string, uploadId: string, parts: UploadedPart[]): Promise<BlobInfo>;
  /** Discards the parts; aborting an unknown upload is not an error. */
  abortMultipartUpload(key: string, uploadId: string): Promise<void>;
  close(): Promise<void>;

  // What only some stores can do. Callers ask for the capability, never for an adapter.

  /**
   * Stores whose signed URLs point back at this API (the embedded store) answer them here: GET of an
   * object, PUT of a part. The composition root mounts it at `/storage/*` when the store has one.
   */
  serveSignedRequest?(request: Request): Promise<Response>;
  /** Stores that keep the bytes on local disk: the object as a file Blob, which an HTTP response sends with sendfile. */
  localFile?(key: string): Promise<(BlobInfo & { file: Blob }) | null>;
  /**
   * Stores that must clear abandoned multipart uploads themselves (on S3 a bucket lifecycle rule does):
   * removes those older than `olderThanMs` and says how many.
   */
  sweepAbandonedUploads?(olderThanMs: number, nowMs: number): Promise<number>;
}

export class NoSuchUploadError extends Error {
  constructor(uploadId: string) {
    super(`no such multipart upload: ${uploadId}`);
    this.name = "NoSuchUploadError";
  }
}

const keyPattern = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

export function isValidBlobKey(key: string): boolean {
  return key.length <= 1024 && keyPattern.test(key) && !key.split("/").some((s) => s === "." || s === "..");
}
