import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { logger } from "../logging/logger.ts";

const log = logger("transcription");

export type StatusStreamOptions = { pollMs?: number; heartbeatMs?: number; maxMs?: number };

type Status = { status: string; attempts: number; failure_reason: string | null };

const encoder = new TextEncoder();
const ended = (status: string) => status === "finished" || status === "failed";

/**
 * Server-Sent Events for one task (`GET /api/tasks/{id}/events`): `event: status` with
 * `{status, attempts, failure_reason}` now and on every change, until the task has finished or failed
 * (`event: deleted` when it is deleted). It polls the tasks read model (one indexed read every
 * `pollMs`), sends a `: heartbeat` comment every 15 s so proxies keep the connection, and closes after
 * `maxMs` (an hour), when a client simply reconnects.
 */
export function taskStatusStream(read: () => Promise<TaskDocument | null>, options: StatusStreamOptions = {}): ReadableStream<Uint8Array> {
  const pollMs = options.pollMs ?? 250;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxMs = options.maxMs ?? 3_600_000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const stop = () => {
    closed = true;
    clearTimeout(timer);
    clearInterval(heartbeat);
  };
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
      const poll = async () => {
        if (closed) return;
        try {
          const task = await read();
          if (!task) {
            send(`event: deleted\ndata: {}\n\n`);
            return finish();
          }
          const status: Status = { status: task.status, attempts: task.attempts, failure_reason: task.failureReason };
          const data = JSON.stringify(status);
          if (data !== last) {
            last = data;
            send(`event: status\ndata: ${data}\n\n`);
          }
          if (ended(task.status) || Date.now() - startedAt > maxMs) return finish();
        } catch (error) {
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
