import { closeSync, constants, openSync } from "node:fs";
import { dlopen, FFIType } from "bun:ffi";

/**
 * Streams a body into a file at an offset with Bun's native writer (`Bun.write` to a file
 * descriptor), which moves the bytes from the socket to the file without handing each chunk to
 * JavaScript: measured on a 1 GiB upload, the server's memory stays flat where a JS read/write loop
 * let ~70 MiB of chunks pile up. Bun.write writes at the descriptor's position, and Node's fs API
 * cannot move that, so `lseek` comes from libc through bun:ffi. Where libc cannot be loaded this is
 * null and callers use their JavaScript path.
 */
type Seek = (fd: number, offset: number) => void;

function loadSeek(): Seek | null {
  for (const name of ["libc.so.6", "libc.so"]) {
    try {
      const libc = dlopen(name, { lseek: { args: [FFIType.i32, FFIType.i64, FFIType.i32], returns: FFIType.i64 } });
      return (fd, offset) => {
        const at = libc.symbols.lseek(fd, offset, 0 /* SEEK_SET */);
        if (Number(at) !== offset) throw new Error(`lseek to ${offset} failed`);
      };
    } catch {
      // try the next name
    }
  }
  return null;
}

const seek = loadSeek();

export const canWriteAtOffset = seek !== null;

/** Writes `body` into `path` (created when missing, never truncated) from `offset`; returns the bytes written. */
export async function writeBodyAt(path: string, body: ReadableStream<Uint8Array>, offset: number): Promise<number> {
  if (!seek) throw new Error("positioned writes are not available here");
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  try {
    seek(fd, offset);
    return await Bun.write(Bun.file(fd), new Response(body));
  } finally {
    closeSync(fd);
  }
}
