import { BackgroundThread } from "../core/background-thread.ts";
import type { Segment } from "./segments.ts";

export type TranscriptJob = { open: ArrayBuffer; sha256: string } | { slice: number; from: number; to: number } | { close: number };
export type TranscriptReply = { damaged: true } | { id: number; count: number } | { segments: Segment[] } | { closed: true };

/**
 * Segments handed over per message: each is one short task on the event loop to take in (about 0.3 ms here), where a
 * maximal transcript's 100,000 at once took 8-14 ms, and hashing and parsing its 24 MiB here took 35-55 ms.
 */
const slice = 2_000;

let readOffThread = 0;
/** How many transcripts a thread has read in this process: how tests see that the main thread did not. */
export const transcriptsReadOffThread = () => readOffThread;

/**
 * Reads the bytes of large transcripts on a thread of its own (transcript-thread.ts), so the event loop never
 * holds one whole: it hashes and parses there, and the segments come back in slices, each taken in as its own
 * turn of the event loop. The search read model and the supplied-transcripts worker each loaded every maximal
 * transcript created, holding the event loop 35-55 ms a time (`/api/health` p99 over 30 ms under four clients
 * creating them).
 */
export class LargeTranscriptReader {
  private readonly thread = new BackgroundThread<TranscriptJob, TranscriptReply>(new URL("./transcript-thread.ts", import.meta.url), "transcript reading", {
    smol: true,
  });

  /** The segments in `bytes` (handed over: unusable here afterwards), or "damaged" when they do not hash to `sha256`. */
  async read(bytes: Uint8Array, sha256: string): Promise<Segment[] | "damaged"> {
    const buffer = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
    const opened = await this.thread.run({ open: buffer as ArrayBuffer, sha256 }, [buffer as ArrayBuffer]);
    readOffThread++;
    if ("damaged" in opened) return "damaged";
    if (!("id" in opened)) throw new Error("transcript reading: the thread answered an open with something else");
    const segments: Segment[] = [];
    try {
      for (let from = 0; from < opened.count; from += slice) {
        const reply = await this.thread.run({ slice: opened.id, from, to: from + slice });
        if (!("segments" in reply)) throw new Error("transcript reading: the thread answered a slice with something else");
        for (const segment of reply.segments) segments.push(segment);
      }
    } finally {
      await this.thread.run({ close: opened.id }).catch(() => undefined);
    }
    if (segments.length !== opened.count) throw new Error(`transcript reading: ${segments.length} of ${opened.count} segments came back`);
    return segments;
  }
}
