import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { logger } from "../logging/logger.ts";
import type { RecognitionProgress } from "./progress.ts";

const log = logger("transcription");

export type StatusStreamOptions = { pollMs?: number; heartbeatMs?: number; maxMs?: number; progressEveryMs?: number };

/**
 * Where a task in progress is: `queued` (pending: waiting for a free transcription slot, or its chunks for a free
 * recogniser), `fetching` (waiting: its media is fetched from its link), `preparing` (the media is read, decoded and
 * cut into chunks), `recognising`, `summarising` (segments, speakers, summary and mind map, saving).
 */
export type LiveStage = "queued" | "fetching" | "preparing" | "recognising" | "summarising";

/** Recognition's progress: `percent` of the media recognised (whole, 0-100), and chunks done of all. */
export type LiveProgress = { percent: number; chunks_done: number; chunks: number };

/** The data of `event: status`. `stage` and `progress` are null when there is nothing to say (ended, or not recognising). */
export type StatusData = {
  status: string;
  attempts: number;
  failure_reason: string | null;
  stage: LiveStage | null;
  progress: LiveProgress | null;
};

/** A task's stage and progress from its status and what its pipeline last reported (progress.ts); pure. */
export function liveStage(status: string, reported: RecognitionProgress | null): Pick<StatusData, "stage" | "progress"> {
  if (status === "pending") return { stage: "queued", progress: null };
  if (status === "waiting") return { stage: "fetching", progress: null };
  if (status !== "scribing") return { stage: null, progress: null };
  if (!reported || reported.stage === "preparing") return { stage: "preparing", progress: null };
  if (reported.stage === "summarising") return { stage: "summarising", progress: null };
  const chunks = reported.chunks;
  const chunksDone = Math.min(reported.chunksDone, chunks);
  const share = reported.msTotal > 0 ? reported.msDone / reported.msTotal : chunks > 0 ? chunksDone / chunks : 0;
  const progress = { percent: Math.min(100, Math.max(0, Math.floor(share * 100))), chunks_done: chunksDone, chunks };
  // Nothing started and nothing done: every chunk waits for a recogniser that other tasks are using.
  return { stage: chunksDone === 0 && reported.chunksRunning === 0 ? "queued" : "recognising", progress };
}

/**
 * What the pipeline last reported for a task that is scribing (null otherwise, or without `readProgress`), read again
 * at most every `progressEveryMs` for the same attempt: a blob read is dearer than the read model's. A read that
 * fails keeps what the same attempt reported before.
 */
function progressReader(
  readProgress: ((attempt: number) => Promise<RecognitionProgress | null>) | undefined,
  progressEveryMs: number,
): (task: TaskDocument) => Promise<RecognitionProgress | null> {
  let reported: { attempt: number; at: number; progress: RecognitionProgress | null } | null = null;
  return async (task) => {
    if (task.status !== "scribing" || !readProgress) return null;
    const now = Date.now();
    if (reported?.attempt === task.attempts && now - reported.at < progressEveryMs) return reported.progress;
    try {
      reported = { attempt: task.attempts, at: now, progress: await readProgress(task.attempts) };
    } catch (error) {
      log.warn({ err: error }, "task status stream: reading the task's progress failed; reading it again later");
      reported = { attempt: task.attempts, at: now, progress: reported?.attempt === task.attempts ? reported.progress : null };
    }
    return reported.progress;
  };
}

const encoder = new TextEncoder();
const ended = (status: string) => status === "finished" || status === "failed";

/**
 * Server-Sent Events for one task (`GET /api/tasks/{id}/events`): `event: status` with
 * `{status, attempts, failure_reason, stage, progress}` now and on every change, until the task has finished or
 * failed (`event: deleted` when it is deleted). It polls the tasks read model (one indexed read every `pollMs`)
 * and, while the task is scribing, what its pipeline reports (`readProgress`, a blob read every
 * `progressEveryMs`); sends a `: heartbeat` comment every 15 s so proxies keep the connection, and closes after
 * `maxMs` (an hour), when a client simply reconnects.
 */
export function taskStatusStream(
  read: () => Promise<TaskDocument | null>,
  options: StatusStreamOptions & { readProgress?: (attempt: number) => Promise<RecognitionProgress | null> } = {},
): ReadableStream<Uint8Array> {
  const pollMs = options.pollMs ?? 250;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxMs = options.maxMs ?? 3_600_000;
  /** Reads in a row that may fail before the stream ends (20 at the default 250 ms: 5 s). */
  const maxFailures = 20;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const stop = () => {
    closed = true;
    clearTimeout(timer);
    clearInterval(heartbeat);
  };
  const progressOf = progressReader(options.readProgress, options.progressEveryMs ?? 1000);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (!closed) controller.enqueue(encoder.encode(text));
      };
      const finish = () => {
        if (closed) return;
        stop();
        controller.close();
      };
      const startedAt = Date.now();
      let last = "";
      let failures = 0;
      const poll = async () => {
        if (closed) return;
        try {
          const task = await read();
          if (!task) {
            send(`event: deleted\ndata: {}\n\n`);
            return finish();
          }
          const status: StatusData = {
            status: task.status,
            attempts: task.attempts,
            failure_reason: task.failureReason,
            ...liveStage(task.status, await progressOf(task)),
          };
          const data = JSON.stringify(status);
          if (data !== last) {
            last = data;
            send(`event: status\ndata: ${data}\n\n`);
          }
          if (ended(task.status) || Date.now() - startedAt > maxMs) return finish();
          failures = 0;
        } catch (error) {
          // A read model that stays unreadable (a stopped service, a store that is down) ends the stream: the client
          // reconnects after `retry`, to this or another process, instead of this one polling for ever.
          if (++failures >= maxFailures) {
            log.warn({ err: error }, "task status stream: reading the task keeps failing; ending the stream, the client reconnects");
            return finish();
          }
          log.warn({ err: error }, "task status stream: reading the task failed; polling again");
        }
        if (!closed) timer = setTimeout(poll, pollMs);
      };
      send(`retry: 2000\n\n`);
      heartbeat = setInterval(() => send(`: heartbeat\n\n`), heartbeatMs);
      void poll();
    },
    cancel: stop,
  });
}
