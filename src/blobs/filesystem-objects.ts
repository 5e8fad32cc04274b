import { open, rm, stat } from "node:fs/promises";
import { handleStream, isNotFound, openForRead, writeAll, writeStream } from "./file-io.ts";
import type { FileLayout } from "./filesystem-layout.ts";
import { keepForBackup } from "./filesystem-hold.ts";
import type { BlobInfo, BlobRead, ByteRange } from "./port.ts";

/** Objects of the embedded store: written to a temp file and renamed into place, read through an open handle. */
export class FileObjects {
  constructor(private readonly layout: FileLayout) {}

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array> | Blob, options: { contentType: string }): Promise<BlobInfo> {
    const path = this.layout.objectPath(key);
    const tmp = await this.layout.tempPath();
    const out = await open(tmp, "wx");
    try {
      if (body instanceof Uint8Array) await writeAll(out, body);
      else await writeStream(out, body instanceof Blob ? body.stream() : body, Number.POSITIVE_INFINITY);
      await out.close();
      const { size } = await stat(tmp);
      await this.layout.commit(tmp, path, options.contentType);
      return { size, contentType: options.contentType };
    } catch (error) {
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<BlobRead | null> {
    const path = this.layout.objectPath(key);
    const opened = await openForRead(path);
    if (!opened) return null;
    const { handle, size } = opened;
    let start = 0;
    let end = size - 1;
    if (options.range) {
      if (options.range.start < 0 || options.range.end < options.range.start) {
        await handle.close();
        throw new RangeError(`invalid byte range ${options.range.start}-${options.range.end}`);
      }
      if (options.range.start >= size) {
        await handle.close();
        return null;
      }
      start = options.range.start;
      end = Math.min(options.range.end, size - 1);
    }
    const contentType = await this.layout.readContentType(path);
    const read: BlobRead = { size, contentType, body: handleStream(handle, start, end) };
    if (options.range) read.range = { start, end };
    return read;
  }

  async head(key: string): Promise<BlobInfo | null> {
    const found = await this.localFile(key);
    return found && { size: found.size, contentType: found.contentType };
  }

  /**
   * The object as a file Blob: Bun sends a file body with sendfile and a correct Content-Length, which
   * it does not do for a ReadableStream body (oven-sh/bun#10507).
   */
  async localFile(key: string): Promise<(BlobInfo & { file: Blob }) | null> {
    const path = this.layout.objectPath(key);
    try {
      const info = await stat(path);
      if (!info.isFile()) return null;
      const contentType = await this.layout.readContentType(path);
      return { size: info.size, contentType, file: Bun.file(path, { type: contentType }) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.layout.objectPath(key);
    // A directory here holds other keys ("a" when "a/b" exists): there is no object "a" to delete.
    if ((await stat(path).catch(() => null))?.isDirectory()) return;
    await keepForBackup(this.layout.root, key, path); // a backup running now may still need it
    await rm(path, { force: true });
    await rm(`${path}~meta.json`, { force: true });
  }
}
