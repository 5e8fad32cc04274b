import type { BlobStore } from "../blobs/port.ts";
import type { Segment } from "./segments.ts";
import { segmentsInBytes, sha256Hex, storedTranscript, type StoredTranscript } from "./stored-transcript.ts";
import { LargeTranscriptReader } from "./large-transcripts.ts";
import { logger } from "../logging/logger.ts";

const log = logger("transcripts");

/**
 * Where a transcript lives: an immutable blob named by the SHA-256 of its JSON, so events carry this
 * small reference (never the segments, which for hours of speech are megabytes) and a reader can
 * check what it got.
 */
export type TranscriptRef = { key: string; sha256: string; segments: number; bytes: number };

/**
 * Under its task's own prefix: deleting the task deletes everything there (task-transcripts-worker.ts) and no
 * other task can be holding it. Content-addressed across tasks (`transcripts/<aa>/<sha256>.json`, still named by
 * events written before), two tasks with the same words shared one blob, so a deletion had to prove that no
 * other task would name it, which no check can do against a task saving those words at the same moment.
 */
export const transcriptKey = (taskId: number, sha256: string) => `${taskTranscriptsPrefix(taskId)}${sha256}.json`;

export const taskTranscriptsPrefix = (taskId: number) => `transcripts/task-${taskId}/`;

/**
 * What an event or read model says of a transcript: `transcript` (a reference) since transcripts left
 * the events, `segments` (inline) in events written before. Both may be absent or null: no transcript.
 */
export type TranscriptSource = { transcript?: TranscriptRef | null; segments?: readonly unknown[] | null };

export const hasTranscript = (source: TranscriptSource): boolean => (source.transcript ?? null) !== null || (source.segments ?? null) !== null;

/**
 * The seconds a finished attempt is charged: its cost (the media's duration in whole seconds), or nothing for a task
 * created with its transcript, which was never recognised. A live session's recording (`origin`) is charged once, with
 * its first attempt: as that attempt is admitted (TaskSlots.admitLive), so this charge of its finish is then refused as
 * a second one; it counts only for a task admitted before live tasks were charged so. A retry of it recognises nothing.
 * The task-slots worker and the sweeper that frees a slot whose release was lost (slots.ts) both charge by it.
 */
export const secondsCharged = (created: TranscriptSource & { origin?: string }, cost: number | null | undefined, attempt: number): number => {
  if (created.origin === "live") return attempt === 1 ? Math.max(0, cost ?? 0) : 0;
  return hasTranscript(created) ? 0 : Math.max(0, cost ?? 0);
};

/** The number of segments a source holds, without reading the blob. */
export const segmentCount = (source: TranscriptSource): number | null => source.transcript?.segments ?? source.segments?.length ?? null;

export class TranscriptIntegrityError extends Error {
  /** `missing`: no such blob, which is what deleting its task leaves; otherwise its bytes do not hash to its name. */
  constructor(
    key: string,
    readonly missing = false,
  ) {
    super(`transcript ${key} ${missing ? "is missing" : "does not match its SHA-256"}`);
    this.name = "TranscriptIntegrityError";
  }
}

/** A transcript whose JSON is larger than this is heavy work to load or parse (HEAVY_WORK_AT_ONCE), its garbage worth collecting. */
export const largeTranscriptBytes = 1024 * 1024;

/** Parsed transcripts kept by hash (they never change); bounded by their JSON size. */
const cacheBytes = 32 * 1024 * 1024;

/** The segments in a small transcript's bytes, once they are known to be what `ref` names. */
function parseChecked(ref: TranscriptRef, bytes: Uint8Array): Segment[] {
  if (sha256Hex(bytes) !== ref.sha256) throw new TranscriptIntegrityError(ref.key);
  return segmentsInBytes(bytes);
}

/** A blob's bytes in one buffer of its size, with no copy to join its chunks; more than it said it had is damage. */
async function bytesOf(ref: TranscriptRef, body: ReadableStream<Uint8Array>, size: number): Promise<Uint8Array> {
  const bytes = new Uint8Array(size);
  let at = 0;
  for await (const chunk of body) {
    if (at + chunk.byteLength > size) throw new TranscriptIntegrityError(ref.key);
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return at === size ? bytes : bytes.subarray(0, at);
}

export class TranscriptStore {
  private readonly cache = new Map<string, { segments: Segment[]; bytes: number }>();
  private cachedBytes = 0;
  private readonly largeReader = new LargeTranscriptReader();
  private readonly reading = new Map<string, Promise<Segment[]>>();

  constructor(private readonly blobs: BlobStore) {}

  /** Stores the task's segments (once per content) and returns the reference an event carries. */
  async save(taskId: number, segments: readonly Segment[]): Promise<TranscriptRef> {
    const stored = storedTranscript(segments);
    const ref = await this.saveStored(taskId, stored);
    this.remember(stored.sha256, segments as Segment[], stored.bytes.byteLength);
    return ref;
  }

  /** Stores a transcript already in its stored form (made on a thread: transcript-body.ts), as `save` does. */
  async saveStored(taskId: number, { bytes, sha256, segments }: StoredTranscript): Promise<TranscriptRef> {
    const key = transcriptKey(taskId, sha256);
    const stored = await this.blobs.head(key);
    if (stored?.size !== bytes.byteLength) await this.blobs.put(key, bytes, { contentType: "application/json" });
    return { key, sha256, segments, bytes: bytes.byteLength };
  }

  /**
   * Deletes a transcript that `save` stored for a task but no event will name: the task was deleted before it
   * could be recorded, or never created. Only under the task's own prefix, where no other task can name it.
   */
  async discard(taskId: number, ref: TranscriptRef | null): Promise<void> {
    if (ref?.key.startsWith(taskTranscriptsPrefix(taskId))) await this.blobs.delete(ref.key);
  }

  async load(ref: TranscriptRef): Promise<Segment[]> {
    const kept = this.cache.get(ref.sha256);
    if (kept) return kept.segments;
    // The search read model and the supplied-transcripts worker load a new transcript at the same moment: one read
    // serves both (a maximal one, too large to cache, was two copies of ~80 MB at once).
    const reading = this.reading.get(ref.key);
    if (reading) return reading;
    const read = this.read(ref).finally(() => this.reading.delete(ref.key));
    this.reading.set(ref.key, read);
    return read;
  }

  private async read(ref: TranscriptRef): Promise<Segment[]> {
    const bytes = await this.bytes(ref);
    // Taken before a large one's buffer is handed to its thread, which leaves it empty here.
    const size = bytes.byteLength;
    const segments = size > largeTranscriptBytes ? await this.readLarge(ref, bytes) : parseChecked(ref, bytes);
    this.remember(ref.sha256, segments, size);
    return segments;
  }

  private async bytes(ref: TranscriptRef): Promise<Uint8Array> {
    const read = await this.blobs.get(ref.key);
    if (!read) throw new TranscriptIntegrityError(ref.key, true);
    // A store that does not say how large the blob is (an S3 answer without a Content-Length): as large as its ref says.
    return bytesOf(ref, read.body, read.size > 0 ? read.size : ref.bytes);
  }

  /** Hashed and parsed on a thread (large-transcripts.ts), which takes the bytes; read again here if that thread failed. */
  private async readLarge(ref: TranscriptRef, bytes: Uint8Array): Promise<Segment[]> {
    let segments: Segment[] | "damaged";
    try {
      segments = await this.largeReader.read(bytes, ref.sha256);
    } catch (error) {
      log.warn({ err: error, key: ref.key }, "a large transcript could not be read on its thread: read on the main thread");
      return parseChecked(ref, await this.bytes(ref));
    }
    if (segments === "damaged") throw new TranscriptIntegrityError(ref.key);
    return segments;
  }

  /** The segments of an event's or document's transcript, wherever they are; null when it has none. */
  async segmentsOf(source: TranscriptSource | null): Promise<Segment[] | null> {
    if (!source) return null;
    if (source.transcript) return this.load(source.transcript);
    return (source.segments ?? null) as Segment[] | null;
  }

  private remember(sha256: string, segments: Segment[], bytes: number): void {
    if (bytes > cacheBytes / 4 || this.cache.has(sha256)) return;
    this.cache.set(sha256, { segments, bytes });
    this.cachedBytes += bytes;
    for (const [key, entry] of this.cache) {
      if (this.cachedBytes <= cacheBytes) break;
      this.cache.delete(key);
      this.cachedBytes -= entry.bytes;
    }
  }
}
