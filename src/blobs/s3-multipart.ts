import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListPartsCommand,
  UploadPartCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { NoSuchUploadError, type UploadedPart } from "./port.ts";
import { isNoSuchUpload } from "./s3-errors.ts";

/**
 * S3's multipart uploads of one bucket, for s3.ts: the calls, and the answers of S3-compatible servers that mean
 * "no such upload" turned into NoSuchUploadError. Keys are checked by the caller.
 */
export class S3Multipart {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async create(key: string, contentType: string): Promise<{ uploadId: string }> {
    const out = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
    if (!out.UploadId) throw new Error(`CreateMultipartUpload ${key} returned no UploadId`);
    return { uploadId: out.UploadId };
  }

  /** Sends one part's bytes (the service's own streamed uploads; clients send theirs to signed URLs). */
  async uploadPart(key: string, uploadId: string, partNumber: number, bytes: Uint8Array): Promise<UploadedPart> {
    const out = await this.client.send(
      new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: bytes, ContentLength: bytes.byteLength }),
    );
    return { partNumber, size: bytes.byteLength, etag: out.ETag ?? "" };
  }

  async listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    const parts: UploadedPart[] = [];
    let marker: string | undefined;
    try {
      for (;;) {
        const out = await this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumberMarker: marker }));
        for (const part of out.Parts ?? []) {
          if (part.PartNumber === undefined || !part.ETag) continue;
          parts.push({ partNumber: part.PartNumber, size: part.Size ?? 0, etag: part.ETag });
        }
        if (!out.IsTruncated || !out.NextPartNumberMarker) break;
        marker = out.NextPartNumberMarker;
      }
    } catch (error) {
      if (isNoSuchUpload(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  async complete(key: string, uploadId: string, parts: UploadedPart[]): Promise<void> {
    try {
      await this.client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
        }),
      );
    } catch (error) {
      // Ceph RGW (16.x) answers a complete of an unknown upload with 500 "This multipart completion
      // is already in progress"; asking whether the upload still exists tells the two apart.
      if (isNoSuchUpload(error) || (await this.uploadIsGone(key, uploadId))) throw new NoSuchUploadError(uploadId);
      throw error;
    }
  }

  async abort(key: string, uploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId }));
    } catch (error) {
      if (!isNoSuchUpload(error)) throw error;
    }
  }

  private async uploadIsGone(key: string, uploadId: string): Promise<boolean> {
    try {
      await this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, MaxParts: 1 }));
      return false;
    } catch (error) {
      return isNoSuchUpload(error);
    }
  }
}
