import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { open, readdir, rename, rm, stat, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BodyTooLargeError, IncompleteBodyError, PartBusyError, isNotFound, writeStream } from "./file-io.ts";
import { partFilePattern, type FileLayout } from "./filesystem-layout.ts";
import { canWriteAtOffset, writeBodyAt } from "./positioned-write.ts";
import { NoSuchUploadError, type UploadedPart } from "./port.ts";

/** A lock left by a crashed writer is broken after this long. */
const staleLockMs = 60 * 60_000;

/**
 * Receives the parts of the embedded store's multipart uploads, streamed to disk (never a whole part in
 * memory).
 *
 * Uploads created with a part size write every part straight into one file, `data`, at offset
 * (partNumber - 1) * partSize, and complete only truncates that file and renames it into place: no
 * second copy of the bytes (a 2 GiB upload is written once, not twice). A part is then recorded by
 * a sparse marker file `<partNumber>-<md5>` whose length is the part's size (so listParts reads
 * sizes as before; its ETag is an MD5, or a random version id when Bun's native writer wrote it, see
 * positioned-write.ts) and guarded while it is written by `<partNumber>.lock`, created exclusively: a
 * second PUT of the same part meanwhile is PartBusyError, and complete refuses while any part is
 * being written. Such an upload completes only as parts 1..n, each but the last of partSize bytes.
 */
export class FilePartWriter {
  constructor(
    private readonly layout: FileLayout,
    private readonly maxPartBytes: number,
  ) {}

  /**
   * `declaredLength` (Content-Length, or the size the URL was signed for) both caps the body and must be
   * met; without one the cap is maxPartBytes. `framed`: the request carried a Content-Length, so HTTP
   * itself ends the body at `declaredLength`.
   */
  async write(
    key: string,
    uploadId: string,
    partNumber: number,
    body: ReadableStream<Uint8Array>,
    declaredLength: number | null,
    framed = false,
  ): Promise<UploadedPart> {
    const upload = await this.layout.readUpload(key, uploadId);
    const dir = this.layout.uploadDir(uploadId);
    if (upload.partSize !== undefined) return this.writeInPlace(uploadId, dir, upload.partSize, partNumber, body, declaredLength, framed);
    const tmp = join(dir, `${partNumber}~tmp-${randomBytes(8).toString("hex")}`);
    let out: Awaited<ReturnType<typeof open>>;
    try {
      out = await open(tmp, "wx");
    } catch (error) {
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    try {
      const { size, md5 } = await writeStream(out, body, declaredLength ?? this.maxPartBytes);
      if (declaredLength !== null && size !== declaredLength) throw new IncompleteBodyError(declaredLength, size);
      await out.close();
      const name = `${partNumber}-${md5}`;
      await rename(tmp, join(dir, name));
      // A re-sent part replaces the earlier one; listParts prefers the newest while both exist.
      for (const other of await readdir(dir)) {
        if (other !== name && other.startsWith(`${partNumber}-`)) await rm(join(dir, other), { force: true });
      }
      return { partNumber, size, etag: `"${md5}"` };
    } catch (error) {
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
  }

  private async writeInPlace(
    uploadId: string,
    dir: string,
    partSize: number,
    partNumber: number,
    body: ReadableStream<Uint8Array>,
    declaredLength: number | null,
    framed: boolean,
  ): Promise<UploadedPart> {
    if (declaredLength !== null && declaredLength > partSize) throw new BodyTooLargeError(partSize);
    const lock = join(dir, `${partNumber}.lock`);
    await this.takeLock(lock, uploadId, partNumber);
    try {
      // The earlier copy of this part is invalid from the first byte we overwrite.
      await this.removeMarkers(dir, partNumber);
      const data = join(dir, "data");
      const offset = (partNumber - 1) * partSize;
      let written: { size: number; md5: string };
      try {
        if (framed && declaredLength !== null && canWriteAtOffset) {
          // HTTP framing holds a body with a Content-Length to that many bytes (checked ≤ partSize above),
          // so the native writer cannot run into the next part. Its ETag is a fresh version id, not an MD5.
          written = { size: await writeBodyAt(data, body, offset), md5: randomBytes(16).toString("hex") };
        } else {
          const out = await open(data, fsConstants.O_RDWR | fsConstants.O_CREAT, 0o644);
          try {
            written = await writeStream(out, body, declaredLength ?? partSize, offset);
          } finally {
            await out.close();
          }
        }
      } catch (error) {
        throw isNotFound(error) ? new NoSuchUploadError(uploadId) : error;
      }
      if (declaredLength !== null && written.size !== declaredLength) throw new IncompleteBodyError(declaredLength, written.size);
      const marker = join(dir, `${partNumber}-${written.md5}`);
      const tmp = join(dir, `${partNumber}~tmp-${randomBytes(8).toString("hex")}`);
      try {
        await writeFile(tmp, "");
        await truncate(tmp, written.size);
        await rename(tmp, marker);
      } catch (error) {
        await rm(tmp, { force: true });
        throw isNotFound(error) ? new NoSuchUploadError(uploadId) : error;
      }
      return { partNumber, size: written.size, etag: `"${written.md5}"` };
    } finally {
      await rm(lock, { force: true });
    }
  }

  private async takeLock(lock: string, uploadId: string, partNumber: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await (await open(lock, "wx")).close();
        return;
      } catch (error) {
        if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
        if ((error as { code?: unknown }).code !== "EEXIST" || attempt > 0) throw new PartBusyError(partNumber);
        const info = await stat(lock).catch(() => null);
        if (info && Date.now() - info.mtimeMs < staleLockMs) throw new PartBusyError(partNumber);
        await rm(lock, { force: true }); // left by a writer that died
      }
    }
  }

  private async removeMarkers(dir: string, partNumber: number): Promise<void> {
    for (const other of await readdir(dir).catch(() => [] as string[])) {
      if (partFilePattern.exec(other)?.[1] === String(partNumber)) await rm(join(dir, other), { force: true });
    }
  }
}
