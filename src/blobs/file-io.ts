import { createHash } from "node:crypto";
import { open, type FileHandle } from "node:fs/promises";

/** Chunk size for reads: big enough for throughput, small enough that a 2 GB file never sits in memory. */
const CHUNK = 256 * 1024;

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body larger than ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

export class IncompleteBodyError extends Error {
  constructor(expected: number, received: number) {
    super(`body ended after ${received} of ${expected} declared bytes`);
    this.name = "IncompleteBodyError";
  }
}

export function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** An open handle and its size, or null for a missing (or not regular) file. */
export async function openForRead(path: string): Promise<{ handle: FileHandle; size: number } | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isNotFound(error) || (error as { code?: unknown }).code === "EISDIR") return null;
    throw error;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    return null;
  }
  return { handle, size: stat.size };
}

/**
 * Bytes `start..end` (inclusive) of an open file as a stream that reads on demand and closes the
 * handle when drained or cancelled. Reading from the handle (not the path) keeps the bytes
 * consistent even if the object is replaced by a rename mid-download.
 */
export function handleStream(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const wanted = Math.min(CHUNK, end + 1 - position);
      if (wanted <= 0) {
        await close();
        controller.close();
        return;
      }
      try {
        const buffer = new Uint8Array(wanted);
        const { bytesRead } = await handle.read(buffer, 0, wanted, position);
        if (bytesRead === 0) throw new Error("file shorter than expected");
        position += bytesRead;
        controller.enqueue(bytesRead === wanted ? buffer : buffer.subarray(0, bytesRead));
      } catch (error) {
        await close();
        controller.error(error);
      }
    },
    cancel: close,
  });
}

/**
 * Writes a stream to an open handle chunk by chunk (back-pressure comes from awaiting each write),
 * hashing as it goes. Rejects with BodyTooLargeError as soon as more than `limit` bytes arrive.
 */
export async function writeStream(
  out: FileHandle,
  body: ReadableStream<Uint8Array>,
  limit: number,
  /** Write from this offset of the file (positional writes) instead of at the handle's position. */
  position?: number,
): Promise<{ size: number; md5: string }> {
  const hash = createHash("md5");
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) throw new BodyTooLargeError(limit);
      hash.update(value);
      await writeAll(out, value, position === undefined ? undefined : position + size - value.byteLength);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    reader.releaseLock();
  }
  return { size, md5: hash.digest("hex") };
}

/** Appends the whole file at `path` to `out`, one chunk at a time. */
export async function appendFile(out: FileHandle, path: string): Promise<number> {
  const input = await open(path, "r");
  try {
    const buffer = new Uint8Array(CHUNK);
    let total = 0;
    for (;;) {
      const { bytesRead } = await input.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) return total;
      await writeAll(out, buffer.subarray(0, bytesRead));
      total += bytesRead;
    }
  } finally {
    await input.close();
  }
}

export async function writeAll(out: FileHandle, bytes: Uint8Array, position?: number): Promise<void> {
  let offset = 0;
  while (offset < bytes.byteLength) {
    const at = position === undefined ? null : position + offset;
    const { bytesWritten } = await out.write(bytes, offset, bytes.byteLength - offset, at);
    offset += bytesWritten;
  }
}

/** A part PUT while another request writes the same part (the store answers 409). */
export class PartBusyError extends Error {
  constructor(partNumber: number) {
    super(`part ${partNumber} is being written by another request`);
    this.name = "PartBusyError";
  }
}
