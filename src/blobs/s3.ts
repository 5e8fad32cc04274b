import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client, UploadPartCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { attachmentDisposition } from "./content-disposition.ts";
import { isValidBlobKey } from "./port.ts";
import { fixedSizeChunks } from "./chunks.ts";
import { httpStatus, isS3Error } from "./s3-errors.ts";
import { S3Multipart } from "./s3-multipart.ts";
import type { BlobInfo, BlobRead, BlobStore, ByteRange, SignedRequest, UploadedPart } from "./port.ts";

export type S3BlobStoreOptions = {
  endpoint: string;
  /**
   * Where clients reach the same S3 (S3_PUBLIC_ENDPOINT), when it differs from `endpoint` (compose:
   * the service talks to http://minio:9000, a browser to the load balancer at http://localhost:3000, which passes
   * signed requests to MinIO with their Host unchanged). Presigned URLs are
   * signed for this host, since the host is part of what a signature covers.
   */
  publicEndpoint?: string | null;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** true for MinIO, Ceph RGW and most S3-compatible servers (bucket in the path, not the host name). */
  forcePathStyle: boolean;
};

/**
 * Streams of unknown length are sent as a multipart upload of parts this size, so memory stays
 * bounded by one part (we do not depend on @aws-sdk/lib-storage, which does the same thing).
 */
const STREAM_PART_BYTES = 8 * 1024 * 1024;

export class S3BlobStore implements BlobStore {
  private readonly client: S3Client;
  /** Signs the URLs handed to clients; signing is local, so it never talks to its endpoint. */
  private readonly signer: S3Client;
  private readonly bucket: string;
  private readonly multipart: S3Multipart;

  constructor(options: S3BlobStoreOptions) {
    this.bucket = options.bucket;
    this.client = S3BlobStore.clientFor(options, options.endpoint);
    this.signer = options.publicEndpoint ? S3BlobStore.clientFor(options, options.publicEndpoint) : this.client;
    this.multipart = new S3Multipart(this.client, this.bucket);
  }

  private static clientFor(options: S3BlobStoreOptions, endpoint: string): S3Client {
    return new S3Client({
      endpoint,
      region: options.region,
      forcePathStyle: options.forcePathStyle,
      credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
      // Since 3.729 the SDK adds CRC32 checksums (and aws-chunked bodies) to every upload, which many
      // S3-compatible servers reject; send them only where an operation requires one.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array> | Blob, options: { contentType: string }): Promise<BlobInfo> {
    checkKey(key);
    if (body instanceof Uint8Array) {
      await this.client.send(
        new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.byteLength, ContentType: options.contentType }),
      );
      return { size: body.byteLength, contentType: options.contentType };
    }
    return this.putStream(key, body instanceof Blob ? body.stream() : body, options.contentType);
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<BlobRead | null> {
    checkKey(key);
    const range = options.range;
    if (range && (range.start < 0 || range.end < range.start)) throw new RangeError(`invalid byte range ${range.start}-${range.end}`);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
      );
      if (!out.Body) throw new Error(`GetObject ${key} returned no body`);
      const read: BlobRead = {
        size: out.ContentLength ?? 0,
        contentType: out.ContentType ?? "application/octet-stream",
        body: out.Body.transformToWebStream() as ReadableStream<Uint8Array>,
      };
      // "bytes 0-9/1234": the served range and the object's full size.
      const served = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(out.ContentRange ?? "");
      if (range && served) {
        read.range = { start: Number(served[1]), end: Number(served[2]) };
        read.size = Number(served[3]);
      } else if (range) {
        // A server may ignore Range and send the whole object; say so truthfully.
        read.range = { start: 0, end: read.size - 1 };
      }
      return read;
    } catch (error) {
      if (isS3Error(error, "NoSuchKey") || isS3Error(error, "InvalidRange")) return null;
      throw error;
    }
  }

  async head(key: string): Promise<BlobInfo | null> {
    checkKey(key);
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType ?? "application/octet-stream" };
    } catch (error) {
      // HEAD answers carry no body, so the status is all there is to go on.
      if (httpStatus(error) === 404) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async signGet(key: string, options: { expiresInSeconds: number; downloadName?: string }): Promise<SignedRequest> {
    checkKey(key);
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: options.downloadName === undefined ? undefined : attachmentDisposition(options.downloadName),
    });
    return { url: await getSignedUrl(this.signer, command, { expiresIn: options.expiresInSeconds }), method: "GET", headers: {} };
  }

  async createMultipartUpload(key: string, options: { contentType: string; partSize?: number }): Promise<{ uploadId: string }> {
    checkKey(key);
    return this.multipart.create(key, options.contentType);
  }

  async signUploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    options: { expiresInSeconds: number; contentLength?: number },
  ): Promise<SignedRequest> {
    checkKey(key);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) throw new RangeError("partNumber must be 1 to 10000");
    // With ContentLength the presigner signs the content-length header: S3 refuses any other length.
    const command = new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, ContentLength: options.contentLength });
    return { url: await getSignedUrl(this.signer, command, { expiresIn: options.expiresInSeconds }), method: "PUT", headers: {} };
  }

  async listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    checkKey(key);
    return this.multipart.listParts(key, uploadId);
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: UploadedPart[]): Promise<BlobInfo> {
    checkKey(key);
    await this.multipart.complete(key, uploadId, parts);
    const info = await this.head(key);
    if (!info) throw new Error(`completed upload ${uploadId} but ${key} is not there`);
    return info;
  }

  async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    checkKey(key);
    await this.multipart.abort(key, uploadId);
  }

  async close(): Promise<void> {
    this.client.destroy();
    if (this.signer !== this.client) this.signer.destroy();
  }

  /** One PutObject when the stream fits in a part, otherwise a multipart upload of fixed-size parts. */
  private async putStream(key: string, stream: ReadableStream<Uint8Array>, contentType: string): Promise<BlobInfo> {
    const chunks = fixedSizeChunks(stream, STREAM_PART_BYTES);
    const first = await chunks.next();
    const firstBytes = first.done ? new Uint8Array(0) : first.value;
    if (firstBytes.byteLength < STREAM_PART_BYTES) return this.put(key, firstBytes, { contentType });

    const { uploadId } = await this.createMultipartUpload(key, { contentType });
    try {
      const parts: UploadedPart[] = [];
      let bytes: Uint8Array | undefined = firstBytes;
      while (bytes) {
        parts.push(await this.multipart.uploadPart(key, uploadId, parts.length + 1, bytes));
        const next = await chunks.next();
        bytes = next.done ? undefined : next.value;
      }
      const info = await this.completeMultipartUpload(key, uploadId, parts);
      return { size: info.size, contentType };
    } catch (error) {
      await this.abortMultipartUpload(key, uploadId).catch(() => {});
      throw error;
    }
  }
}

function checkKey(key: string): void {
  if (!isValidBlobKey(key)) throw new TypeError(`invalid blob key: ${JSON.stringify(key)}`);
}
