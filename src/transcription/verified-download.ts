import { mkdir, open, rename, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";

/** A file to fetch: where from, where to, and the size and SHA-256 it must have. */
export type DownloadTarget = { url: string; path: string; size: number; sha256: string };

/**
 * Why a download stopped: the server could not be reached, answered with an error status, offered or sent a file of
 * another size, was cut before the end (the `.part` file is kept, and the next try resumes it), or sent bytes whose
 * SHA-256 is not the pinned one (the `.part` file is removed).
 */
export type DownloadFailure = "unreachable" | "status" | "size" | "cut" | "hash";

export class DownloadError extends Error {
  constructor(
    readonly failure: DownloadFailure,
    message: string,
  ) {
    super(message);
  }
}

export type DownloadOptions = {
  /** Bytes of the file held so far (resumed ones included) against its size, after every chunk. */
  onProgress?: (received: number, total: number) => void;
  /** A connection that sends nothing for this long counts as cut (default 60 s). */
  stallMs?: number;
};

/** What a finished download did: the bytes the `.part` file already had, and the bytes fetched now. */
export type DownloadOutcome = { resumedFrom: number; fetched: number };

const partOf = (path: string) => `${path}.part`;

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}

/** The file's SHA-256 in hex, read as a stream (models are gigabytes). */
export async function sha256OfFile(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  return hasher.digest("hex");
}

/** `Content-Range: bytes START-END/TOTAL`'s START, or null when the header is missing or malformed. */
function rangeStart(response: Response): number | null {
  const match = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(response.headers.get("content-range") ?? "");
  return match ? Number(match[1]) : null;
}

/**
 * Asks for the file, or for its rest from `from` (an HTTP Range request). Null: start again from the beginning,
 * because the server refused the range or answered for another one.
 */
async function request(target: DownloadTarget, from: number, signal: AbortSignal): Promise<{ response: Response; from: number } | null> {
  let response: Response;
  try {
    // identity: the bytes as stored, so Content-Length and ranges count the file's own bytes, not a compressed form.
    const headers: Record<string, string> = { "accept-encoding": "identity", ...(from > 0 ? { range: `bytes=${from}-` } : {}) };
    response = await fetch(target.url, { headers, signal, redirect: "follow" });
  } catch (error) {
    const why = signal.aborted ? "no answer for a while" : (error as Error).message;
    throw new DownloadError("unreachable", `cannot reach ${new URL(target.url).origin}: ${why}`);
  }
  if (from > 0 && (response.status === 416 || (response.status === 206 && rangeStart(response) !== from))) {
    await response.body?.cancel();
    return null;
  }
  if (response.status !== 200 && response.status !== 206) {
    await response.body?.cancel();
    throw new DownloadError("status", `${target.url} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
  }
  // A 200 to a range request: the server ignores ranges and sends the whole file, which replaces the part.
  const start = response.status === 206 ? from : 0;
  const length = response.headers.get("content-length");
  if (length !== null && start + Number(length) !== target.size) {
    await response.body?.cancel();
    throw new DownloadError("size", `${target.url} offers ${start + Number(length)} bytes where ${target.size} are pinned`);
  }
  return { response, from: start };
}

/** Aborts its signal when `kick` is not called for `ms`: a connection that hangs (a dropped route, a stuck proxy) ends. */
type Watchdog = { signal: AbortSignal; kick(): void; stop(): void };

function watchdog(ms: number): Watchdog {
  const controller = new AbortController();
  let timer = setTimeout(() => controller.abort(), ms);
  return {
    signal: controller.signal,
    kick() {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), ms);
    },
    stop: () => clearTimeout(timer),
  };
}

/** Appends the answer's body to the part file from `from`; a connection cut or stalled keeps what arrived. */
async function receive(target: DownloadTarget, response: Response, from: number, stall: Watchdog, options: DownloadOptions): Promise<number> {
  // Only now: a pull refused before any byte arrives (offline, a 404) leaves no folder behind.
  await mkdir(dirname(target.path), { recursive: true });
  const file = await open(partOf(target.path), from > 0 ? "a" : "w");
  let received = from;
  try {
    for await (const chunk of response.body ?? new ReadableStream<Uint8Array>()) {
      stall.kick();
      if (received + chunk.length > target.size) throw new DownloadError("size", `${target.url} sent more than the ${target.size} bytes pinned`);
      await file.write(chunk);
      received += chunk.length;
      options.onProgress?.(received, target.size);
    }
  } catch (error) {
    if (error instanceof DownloadError) throw error;
    const why = stall.signal.aborted ? "nothing arrived for a while" : (error as Error).message;
    throw new DownloadError("cut", `the download stopped at ${received} of ${target.size} bytes (${why})`);
  } finally {
    await file.close();
  }
  if (received < target.size) throw new DownloadError("cut", `the download stopped at ${received} of ${target.size} bytes (the server ended it)`);
  return received - from;
}

/**
 * Fetches `target.url` into `target.path` through `<path>.part`, resuming a part left by an earlier try, and renames it
 * only once its size and SHA-256 are the pinned ones: nothing half-written or wrong is ever under the final name.
 * Throws DownloadError; a part with wrong bytes is removed, a cut one kept for the next try.
 */
export async function downloadVerified(target: DownloadTarget, options: DownloadOptions = {}): Promise<DownloadOutcome> {
  const part = partOf(target.path);
  let held = (await sizeOf(part)) ?? 0;
  if (held > target.size) {
    await rm(part, { force: true });
    held = 0;
  }
  let resumedFrom = held;
  let fetched = 0;
  if (held < target.size) {
    const stall = watchdog(options.stallMs ?? 60_000);
    try {
      const answer = (await request(target, held, stall.signal)) ?? (await request(target, 0, stall.signal));
      if (!answer) throw new DownloadError("status", `${target.url} refused to send the file from its start`);
      resumedFrom = answer.from;
      options.onProgress?.(answer.from, target.size);
      fetched = await receive(target, answer.response, answer.from, stall, options);
    } catch (error) {
      // More bytes than pinned: what was written is not the file, and resuming it would only repeat that.
      if (error instanceof DownloadError && error.failure === "size") await rm(part, { force: true });
      throw error;
    } finally {
      stall.stop();
    }
  }
  if ((await sha256OfFile(part)) !== target.sha256) {
    await rm(part, { force: true });
    throw new DownloadError("hash", `the file from ${target.url} does not have the pinned SHA-256 ${target.sha256}: it was removed`);
  }
  await rename(part, target.path);
  return { resumedFrom, fetched };
}
