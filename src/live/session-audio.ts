/** A live session's recording on disk as it is spoken (SessionAudio, live-session-types.ts). */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { bytesPerMs, wavHeader, wavHeaderBytes } from "../transcription/wav.ts";
import type { SessionAudio } from "./live-session-types.ts";

/**
 * Samples are copied into this buffer and written when it is full: a session holds at most this much of its audio in
 * memory (2 s at 16 kHz), and its disk sees one write every 2 s instead of one per 20-100 ms `append` event.
 */
const bufferBytes = 64 * 1024;

/** A WAV's sizes are 32-bit: its data stops short of 4 GiB (37 hours at 16 kHz), far past any session's maximum length. */
const maxDataBytes = 0xffff_ffff - 36;

/**
 * A recording in `dir`: the 44-byte header's place first (written with its sizes on `close`), then the samples,
 * little-endian as the platform's Int16Array holds them (Bun runs on little-endian machines only).
 * Writes are synchronous: a 64 KiB write to a local file takes tens of microseconds, and `append` stays in order
 * with no queue of pending writes to bound.
 */
class FileSessionAudio implements SessionAudio {
  private readonly buffer = new Uint8Array(bufferBytes);
  private filled = 0;
  private written = 0;
  private fd: number | null;

  constructor(
    readonly path: string,
    fd: number,
  ) {
    this.fd = fd;
    writeSync(fd, new Uint8Array(wavHeaderBytes), 0, wavHeaderBytes, 0);
  }

  get durationMs(): number {
    return (this.written + this.filled) / bytesPerMs;
  }

  append(samples: Int16Array): void {
    if (this.fd === null) throw new Error("The session's audio is already closed.");
    const bytes = new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength);
    if (this.written + this.filled + bytes.byteLength > maxDataBytes) throw new RangeError("A session's audio is at most 4 GiB.");
    let from = 0;
    while (from < bytes.byteLength) {
      const taken = Math.min(bytes.byteLength - from, bufferBytes - this.filled);
      this.buffer.set(bytes.subarray(from, from + taken), this.filled);
      this.filled += taken;
      from += taken;
      if (this.filled === bufferBytes) this.flush();
    }
  }

  private flush(): void {
    if (this.fd === null || this.filled === 0) return;
    writeSync(this.fd, this.buffer, 0, this.filled, wavHeaderBytes + this.written);
    this.written += this.filled;
    this.filled = 0;
  }

  async close(): Promise<string> {
    if (this.fd !== null) {
      this.flush();
      writeSync(this.fd, wavHeader(this.written), 0, wavHeaderBytes, 0);
      closeSync(this.fd);
      this.fd = null;
    }
    return this.path;
  }

  async discard(): Promise<void> {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.filled = 0;
    await rm(this.path, { force: true });
  }
}

/** Opens a new recording under `dir` (made when missing), named at random so sessions never share a file. */
export async function openSessionAudio(dir: string): Promise<SessionAudio> {
  await mkdir(dir, { recursive: true });
  const path = join(dir, `live-${randomBytes(12).toString("hex")}.wav`);
  // `wx`: a new file only, never another session's (or a link planted where this name would go).
  return new FileSessionAudio(path, openSync(path, "wx", 0o600));
}
