import { serveStorageRequest } from "./filesystem-http.ts";
import { FileLayout, uploadIdPattern } from "./filesystem-layout.ts";
import { FileMultipart } from "./filesystem-multipart.ts";
import { FileObjects } from "./filesystem-objects.ts";
import { FilePartWriter } from "./filesystem-parts.ts";
import { sweepFileUploads } from "./filesystem-sweep.ts";
import { NoSuchUploadError, type BlobInfo, type BlobRead, type BlobStore, type ByteRange, type SignedRequest, type UploadedPart } from "./port.ts";
import { expiresAt, signedQuery, verifySignedQuery, type SignedGrant } from "./signing.ts";

export { PartBusyError } from "./file-io.ts";
export { InvalidPartError } from "./filesystem-multipart.ts";

export type FileBlobStoreOptions = {
  root: string;
  /** Base URL the API is reached at; signed URLs point at `${publicUrl}/storage/...` unless the caller names its own origin. */
  publicUrl: string;
  secret: string;
  /** Largest part a PUT may send, declared or not (S3's own limit, 5 GiB, by default). */
  maxPartBytes?: number;
};

/**
 * The embedded blob store: files under DATA_DIR (filesystem-layout.ts), with URLs it signs itself and
 * answers through the API (filesystem-http.ts). Each concern has its own file: objects, multipart
 * uploads, part writes, signing and the sweep of abandoned uploads; this class puts them behind the port.
 */
export class FileBlobStore implements BlobStore {
  readonly maxPartBytes: number;
  private readonly layout: FileLayout;
  private readonly objects: FileObjects;
  private readonly multipart: FileMultipart;
  /** Receives the parts PUT to the URLs this store signs (filesystem-http.ts). */
  readonly parts: FilePartWriter;
  private readonly publicUrl: string;

  constructor(private readonly options: FileBlobStoreOptions) {
    this.layout = new FileLayout(options.root);
    this.maxPartBytes = options.maxPartBytes ?? 5 * 1024 ** 3;
    this.objects = new FileObjects(this.layout);
    this.multipart = new FileMultipart(this.layout);
    this.parts = new FilePartWriter(this.layout, this.maxPartBytes);
    this.publicUrl = options.publicUrl.replace(/\/+$/, "");
  }

  put(key: string, body: Uint8Array | ReadableStream<Uint8Array> | Blob, options: { contentType: string }): Promise<BlobInfo> {
    return this.objects.put(key, body, options);
  }

  get(key: string, options: { range?: ByteRange } = {}): Promise<BlobRead | null> {
    return this.objects.get(key, options);
  }

  head(key: string): Promise<BlobInfo | null> {
    return this.objects.head(key);
  }

  localFile(key: string): Promise<(BlobInfo & { file: Blob }) | null> {
    return this.objects.localFile(key);
  }

  delete(key: string): Promise<void> {
    return this.objects.delete(key);
  }

  async signGet(key: string, options: { expiresInSeconds: number; downloadName?: string; origin?: string }): Promise<SignedRequest> {
    this.layout.objectPath(key);
    const grant: SignedGrant = { method: "GET", key, expires: expiresAt(options.expiresInSeconds) };
    if (options.downloadName !== undefined) grant.downloadName = options.downloadName;
    return { url: this.signedUrl(grant, options.origin), method: "GET", headers: {} };
  }

  createMultipartUpload(key: string, options: { contentType: string; partSize?: number }): Promise<{ uploadId: string }> {
    return this.multipart.create(key, options);
  }

  async signUploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    options: { expiresInSeconds: number; contentLength?: number; origin?: string },
  ): Promise<SignedRequest> {
    this.layout.objectPath(key);
    if (!uploadIdPattern.test(uploadId)) throw new NoSuchUploadError(uploadId);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) throw new RangeError("partNumber must be 1 to 10000");
    const grant: SignedGrant = { method: "PUT", key, uploadId, partNumber, expires: expiresAt(options.expiresInSeconds) };
    if (options.contentLength !== undefined) grant.size = options.contentLength;
    return { url: this.signedUrl(grant, options.origin), method: "PUT", headers: {} };
  }

  listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    return this.multipart.listParts(key, uploadId);
  }

  completeMultipartUpload(key: string, uploadId: string, parts: UploadedPart[]): Promise<BlobInfo> {
    return this.multipart.complete(key, uploadId, parts);
  }

  abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    return this.multipart.abort(key, uploadId);
  }

  /** Serves the URLs this store signs (GET of an object, PUT of a part); see filesystem-http.ts. */
  serveSignedRequest(request: Request): Promise<Response> {
    return serveStorageRequest(this, request);
  }

  /** The grant a signed request carries, or null when it is forged, tampered with or expired. */
  verify(method: "GET" | "PUT", key: string, query: URLSearchParams): SignedGrant | null {
    return verifySignedQuery(this.options.secret, method, key, query);
  }

  sweepAbandonedUploads(olderThanMs: number, nowMs: number = Date.now()): Promise<number> {
    return sweepFileUploads(this.layout, olderThanMs, nowMs);
  }

  async close(): Promise<void> {}

  /**
   * The URL is the API's own, at `origin` (where the caller reached it) or PUBLIC_URL; the signature does not cover
   * the address, so the same grant works at any address the API answers at.
   */
  private signedUrl(grant: SignedGrant, origin?: string): string {
    const base = origin === undefined ? this.publicUrl : origin.replace(/\/+$/, "");
    return `${base}/storage/${grant.key}?${signedQuery(this.options.secret, grant)}`;
  }
}
