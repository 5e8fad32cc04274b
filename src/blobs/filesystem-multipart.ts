import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PartBusyError, appendFile, isNotFound } from "./file-io.ts";
import { uploadIdPattern, type FileLayout, type UploadMeta } from "./filesystem-layout.ts";
import { NoSuchUploadError, type BlobInfo, type UploadedPart } from "./port.ts";

export class InvalidPartError extends Error {
  constructor(partNumber: number) {
    super(`part ${partNumber} is missing or its ETag does not match`);
    this.name = "InvalidPartError";
  }
}

/**
 * Multipart uploads of the embedded store: an upload is a folder of parts, completed by joining them
 * (two strategies: parts as separate files copied into the object, or, for uploads created with a part
 * size, parts written in place into one file that complete only truncates and renames; see
 * filesystem-parts.ts).
 */
export class FileMultipart {
  constructor(private readonly layout: FileLayout) {}

  async create(key: string, options: { contentType: string; partSize?: number }): Promise<{ uploadId: string }> {
    this.layout.objectPath(key);
    const uploadId = randomBytes(16).toString("hex");
    const dir = this.layout.uploadDir(uploadId);
    await mkdir(dir, { recursive: true });
    const meta: UploadMeta = { key, contentType: options.contentType, createdAt: Date.now() };
    if (options.partSize !== undefined && Number.isSafeInteger(options.partSize) && options.partSize > 0) meta.partSize = options.partSize;
    await writeFile(join(dir, "upload.json"), JSON.stringify(meta));
    return { uploadId };
  }

  async listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    await this.layout.readUpload(key, uploadId);
    try {
      return await this.layout.partsIn(this.layout.uploadDir(uploadId));
    } catch (error) {
      // Completed or aborted since readUpload looked.
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
  }

  async complete(key: string, uploadId: string, parts: UploadedPart[]): Promise<BlobInfo> {
    const upload = await this.layout.readUpload(key, uploadId);
    if (parts.length === 0) throw new InvalidPartError(0);
    parts.forEach((part, i) => {
      if (i > 0 && part.partNumber <= parts[i - 1]!.partNumber) throw new InvalidPartError(part.partNumber);
    });
    // Claim the upload with one rename, so two concurrent completes cannot both assemble it and a
    // part PUT arriving now finds no upload instead of being silently left out.
    const dir = this.layout.uploadDir(uploadId);
    const claimed = `${dir}~completing-${randomBytes(4).toString("hex")}`;
    try {
      await rename(dir, claimed);
    } catch (error) {
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    if (upload.partSize !== undefined) return this.completeInPlace(key, upload, dir, claimed, parts);
    const tmp = await this.layout.tempPath();
    const out = await open(tmp, "wx");
    try {
      let size = 0;
      for (const part of parts) {
        const etag = part.etag.replace(/"/g, "");
        try {
          size += await appendFile(out, join(claimed, `${part.partNumber}-${etag}`));
        } catch (error) {
          throw isNotFound(error) ? new InvalidPartError(part.partNumber) : error;
        }
      }
      await out.close();
      await this.layout.commit(tmp, this.layout.objectPath(key), upload.contentType);
      await rm(claimed, { recursive: true, force: true });
      return { size, contentType: upload.contentType };
    } catch (error) {
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      await rename(claimed, dir).catch(() => {});
      throw error;
    }
  }

  async abort(key: string, uploadId: string): Promise<void> {
    this.layout.objectPath(key);
    if (!uploadIdPattern.test(uploadId)) return;
    await rm(this.layout.uploadDir(uploadId), { recursive: true, force: true });
  }

  /** Parts written in place: refuse while one is being written, check each, then truncate `data` and rename it into place. */
  private async completeInPlace(key: string, upload: UploadMeta, dir: string, claimed: string, parts: UploadedPart[]): Promise<BlobInfo> {
    const partSize = upload.partSize!;
    try {
      const names = await readdir(claimed);
      const busy = names.find((name) => name.endsWith(".lock"));
      if (busy) throw new PartBusyError(Number.parseInt(busy, 10));
      let size = 0;
      for (const [i, part] of parts.entries()) {
        const marker = `${part.partNumber}-${part.etag.replace(/"/g, "")}`;
        const info = names.includes(marker) ? await stat(join(claimed, marker)) : null;
        const last = i === parts.length - 1;
        if (!info || part.partNumber !== i + 1 || (!last && info.size !== partSize) || info.size > partSize) throw new InvalidPartError(part.partNumber);
        size += info.size;
      }
      const data = join(claimed, "data");
      if (size === 0) await writeFile(data, "");
      await truncate(data, size);
      await this.layout.commit(data, this.layout.objectPath(key), upload.contentType);
      await rm(claimed, { recursive: true, force: true });
      return { size, contentType: upload.contentType };
    } catch (error) {
      await rename(claimed, dir).catch(() => {});
      throw error;
    }
  }
}
