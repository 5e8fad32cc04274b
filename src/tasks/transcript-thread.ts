import { serveOnThread } from "../core/background-thread.ts";
import type { TranscriptJob, TranscriptReply } from "./large-transcripts.ts";
import type { Segment } from "./segments.ts";
import { segmentsInBytes, sha256Hex } from "./stored-transcript.ts";

/**
 * The thread that reads large transcripts (large-transcripts.ts): checks a blob's bytes against its SHA-256,
 * parses them, and hands the segments out a slice at a time until the reader closes them.
 */
const open = new Map<number, Segment[]>();
let lastId = 0;

function serve(job: TranscriptJob): TranscriptReply {
  if ("open" in job) {
    const bytes = new Uint8Array(job.open);
    if (sha256Hex(bytes) !== job.sha256) return { damaged: true };
    const segments = segmentsInBytes(bytes);
    open.set(++lastId, segments);
    return { id: lastId, count: segments.length };
  }
  if ("slice" in job) {
    // An id this thread never gave (a thread started again meanwhile): refused, never an empty or another's slice.
    const segments = open.get(job.slice);
    if (!segments) throw new Error(`no transcript ${job.slice} is open on this thread`);
    return { segments: segments.slice(job.from, job.to) };
  }
  open.delete(job.close);
  // The parsed copy is garbage now: collected before the next one piles up on it.
  if (open.size === 0) setTimeout(() => Bun.gc(true), 0);
  return { closed: true };
}

serveOnThread<TranscriptJob, TranscriptReply>(serve);
