import type { TaskCommand } from "./decider.ts";
import type { createTaskBody } from "./schemas.ts";
import { normalizeSegments, type Segment } from "./segments.ts";
import { recordedChoice, type RecognitionChoice } from "./recognition-choice.ts";
import { largeTranscriptBytes, type TranscriptRef, type TranscriptStore } from "./transcripts.ts";
import type { StoredTranscript } from "./stored-transcript.ts";

/** What `POST /api/tasks` takes: the route's schema, validated before it gets here. */
export type CreateTaskInput = typeof createTaskBody.static;

/**
 * A live session kept as a task (src/live/live-task.ts): its transcript as recognised while it was spoken, timed words
 * kept (a client's `segments` never carry words), charged its cost as it is admitted (TaskSlots.admitLive), whatever the tasks in progress.
 */
export type LiveRecording = { segments: Segment[] };

/**
 * `taskId`: an id taken earlier (an upload's completion records it first), so a repeat creates nothing new; `live`: see
 * LiveRecording; `stored`: the request's segments, checked and serialised on the body thread (transcript-body.ts).
 */
export type CreateOptions = { taskId?: number; live?: LiveRecording; stored?: StoredTranscript };

/** The command that creates task `taskId` from a request's fields; `transcript`: the supplied one, already stored. */
export function createTaskCommand(
  taskId: number,
  userId: number,
  input: CreateTaskInput,
  choice: RecognitionChoice,
  transcript: TranscriptRef | null,
  now: Date,
  live = false,
): TaskCommand {
  return {
    type: "CreateTask",
    now: now.toISOString(),
    task: {
      taskId,
      userId,
      name: input.name,
      file: input.file ?? null,
      path: input.path,
      disk: input.disk,
      size: input.size ?? null,
      duration: input.duration ?? null,
      cost: input.cost ?? null,
      url: input.disk === "videolink" || input.disk === "remote" ? input.path : null,
      speakerDiarization: input.speaker_diarization ?? false,
      ...recordedChoice(choice),
      transcript,
      ...(live && { origin: "live" as const }),
    },
  };
}

/**
 * Stores the supplied segments (none: null), then lets go of them (`input.segments`, or the bytes made of them on the
 * body thread, `options.stored`, is emptied): the caller's parsed body,
 * held by the HTTP context until the answer, would otherwise keep up to 100,000 segments alive through the
 * read-your-writes wait, while the search read model loads its own copy to index. Four clients sending
 * maximal transcripts took the service's peak RSS to 570-600 MiB with them kept, 416-472 MiB without
 * (bench/hostile-bodies.bench.ts; goal 512).
 */
export async function storeSuppliedTranscript(
  transcripts: TranscriptStore,
  taskId: number,
  input: CreateTaskInput,
  options: Pick<CreateOptions, "live" | "stored">,
): Promise<TranscriptRef | null> {
  if (options.live) return transcripts.save(taskId, options.live.segments);
  if (options.stored) {
    const transcript = await transcripts.saveStored(taskId, options.stored);
    options.stored = undefined;
    return transcript;
  }
  if (!input.segments) return null;
  const transcript = await transcripts.save(taskId, normalizeSegments(input.segments));
  (input as { segments?: unknown }).segments = undefined;
  // Collected soon, in the background: the wait ahead is the moment to (the heavy-work slot is still held).
  if (transcript.bytes > largeTranscriptBytes) Bun.gc(false);
  return transcript;
}
