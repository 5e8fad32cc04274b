import { hasTranscript } from "../tasks/transcripts.ts";
import { ownsMediaKey } from "../media/ownership.ts";
import { open } from "node:fs/promises";
import type { BlobStore } from "../blobs/port.ts";
import { isValidBlobKey } from "../blobs/port.ts";
import type { RecordedEvent } from "../core/event.ts";
import { isTaskEvent, type Disk } from "../tasks/events.ts";
import { MediaError } from "./media.ts";
import { choiceOf, type RecognitionChoice } from "../tasks/recognition-choice.ts";

/** Spec 8: no file above 2 GB (2,147,483,648 bytes) is transcribed. */
export const maxMediaBytes = 2_147_483_648;

/** What the pipeline needs to know about a task, folded from its stream (the source of truth). */
export type TaskFacts = {
  userId: number;
  name: string;
  disk: Disk;
  /** The blob key of the media: the task's `path` for uploads, the fetched object for remote and video links. */
  mediaKey: string | null;
  speakerDiarization: boolean;
  /** The engine, language and vocabulary the task asked for. */
  recognition: RecognitionChoice;
  /** Whether the transcript came with the task (no recognition, no charge). */
  supplied: boolean;
  attempts: number;
  /** When the current attempt started scribing. */
  scribingSince: string | null;
};

export function taskFacts(events: RecordedEvent[]): TaskFacts | null {
  let facts: TaskFacts | null = null;
  for (const event of events.filter(isTaskEvent)) {
    if (event.type === "TaskCreated") {
      const d = event.data;
      // Only media of the task's own user is ever read: another account's key is "not found", like a missing one.
      facts = {
        userId: d.userId,
        name: d.name,
        disk: d.disk,
        mediaKey: d.disk === "objstore" && ownsMediaKey(d.userId, d.path) ? d.path : null,
        speakerDiarization: d.speakerDiarization,
        recognition: choiceOf(d),
        supplied: hasTranscript(d),
        attempts: 1,
        scribingSince: null,
      };
      continue;
    }
    if (!facts) continue;
    if (event.type === "TaskRenamed") facts.name = event.data.name;
    else if (event.type === "MediaFetched") facts.mediaKey = ownsMediaKey(facts.userId, event.data.path) ? event.data.path : null;
    else if (event.type === "TaskRetried") facts.attempts = event.data.attempt;
    else if (event.type === "TranscriptionStarted") facts.scribingSince = event.time;
    else if (event.type === "TaskDeleted") return null;
  }
  return facts;
}

/** Files above this size are first probed on their first bytes, so a large file that is not media is refused without copying it. */
export const prefixProbeBytes = 8 * 2 ** 20;

/** The size of the task's media, refusing what cannot be transcribed whatever its content. */
export async function mediaSize(blobs: BlobStore, key: string | null): Promise<number> {
  if (key === null || !isValidBlobKey(key)) throw new MediaError("media not found in storage");
  const info = await blobs.head(key);
  if (!info) throw new MediaError("media not found in storage");
  if (info.size === 0) throw new MediaError("The file is empty (0 bytes).");
  if (info.size > maxMediaBytes)
    throw new MediaError(`The file is ${(info.size / 2 ** 30).toFixed(1)} GiB; files above 2 GB (2,147,483,648 bytes) are not transcribed.`);
  return info.size;
}

/**
 * Copies the task's media (or its first `limit` bytes) out of the blob store into `path`, streamed:
 * a 2 GB file never sits in memory.
 */
export async function fetchMedia(blobs: BlobStore, key: string, path: string, signal?: AbortSignal, limit?: number): Promise<number> {
  const read = await blobs.get(key, limit === undefined ? {} : { range: { start: 0, end: limit - 1 } });
  if (!read) throw new MediaError("media not found in storage");
  const out = await open(path, "w");
  let written = 0;
  try {
    for await (const chunk of read.body) {
      signal?.throwIfAborted();
      await out.write(chunk);
      written += chunk.byteLength;
    }
  } finally {
    await out.close();
  }
  return written;
}
