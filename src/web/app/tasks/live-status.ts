import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { isTaskState, type TaskState } from "../task-status/task-state.ts";
import { serverSentEvents } from "./server-sent-events.ts";

/** What the status stream says of a task (`GET /api/tasks/{id}/events`, `event: status`). */
export type TaskStatus = { status: TaskState; attempts: number; failure_reason: string | null };

export const inProgress = (status: string) => status === "pending" || status === "waiting" || status === "scribing";

const pause = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });

function asStatus(data: string): TaskStatus | null {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value === "object" && value !== null && "status" in value && isTaskState(value.status)) return value as TaskStatus;
  } catch {}
  return null;
}

/**
 * A browser keeps at most 6 HTTP/1.1 connections to an origin, and an open stream holds one: a page of tasks all
 * in progress (stuck ones, or many failed ones being read) would leave none for the app's other requests. So at
 * most 3 streams are open at once (a user has at most 3 tasks in progress); the others wait their turn.
 */
const maxOpenStreams = 3;
let openStreams = 0;
const waitingStreams: (() => void)[] = [];

function openStream(signal: AbortSignal): Promise<boolean> {
  if (openStreams < maxOpenStreams) {
    openStreams++;
    return Promise.resolve(true);
  }
  return new Promise((resolve) => {
    const start = () => {
      signal.removeEventListener("abort", cancel);
      openStreams++;
      resolve(true);
    };
    const cancel = () => {
      const at = waitingStreams.indexOf(start);
      if (at !== -1) waitingStreams.splice(at, 1);
      resolve(false);
    };
    waitingStreams.push(start);
    signal.addEventListener("abort", cancel, { once: true });
  });
}

function closeStream(): void {
  openStreams--;
  waitingStreams.shift()?.();
}

/** The wait a 429 or 503 asks for (`Retry-After` in seconds), between 2 s and a minute; 5 s when it names none. */
function retryAfterMs(response: Response): number {
  const seconds = Number(response.headers.get("retry-after"));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(60, Math.max(2, seconds)) * 1000 : 5000;
}

/**
 * Follows one task's status stream until it is finished, failed or deleted, or `signal` aborts. The server
 * closes the stream after an hour, and a network error closes it too: then it is opened again after 2 s
 * (the stream's own `retry:`), as EventSource would; a 429 or 503 after the time its `Retry-After` asks. A refusal
 * (the task is gone, the session ended) stops.
 */
export async function followTaskStatus(id: number, signal: AbortSignal, onStatus: (status: TaskStatus | "deleted") => void): Promise<void> {
  while (!signal.aborted) {
    if (!(await openStream(signal))) return;
    let wait = 2000;
    try {
      const { data, response } = await api.GET("/api/tasks/{id}/events", { params: { path: { id } }, parseAs: "stream", signal });
      // Too many requests, or the service busy: no refusal of this task; asked again when the answer says.
      if (response.status === 429 || response.status === 503) wait = retryAfterMs(response);
      else if (!response.ok || !data) return;
      else {
        for await (const message of serverSentEvents(data)) {
          if (message.event === "deleted") return onStatus("deleted");
          const status = message.event === "status" ? asStatus(message.data) : null;
          if (!status) continue;
          onStatus(status);
          if (!inProgress(status.status)) return;
        }
      }
    } catch {
      if (signal.aborted) return;
    } finally {
      closeStream();
    }
    await pause(wait, signal);
  }
}

/**
 * A listed task's status as it changes, without reloading: a task in progress or failed is followed on its
 * status stream (a failed one's stream answers at once with its `failure_reason`, then ends). `restart()`
 * follows it again (after a retry). `onSettled` is called when a task in progress finishes, fails or is deleted.
 */
export function useLiveStatus(task: { id: number; status: TaskState; attempts: number }, onSettled: () => void) {
  const [live, setLive] = useState<TaskStatus | "deleted">({ status: task.status, attempts: task.attempts, failure_reason: null });
  const [round, setRound] = useState(0);
  const settled = useRef(onSettled);
  settled.current = onSettled;
  // A reloaded list is newer than what this row last heard.
  useEffect(() => setLive((now) => (now === "deleted" ? now : { ...now, status: task.status, attempts: task.attempts })), [task.status, task.attempts]);
  const follow = live !== "deleted" && live.status !== "finished";
  useEffect(() => {
    if (!follow) return;
    const controller = new AbortController();
    let last: TaskState | "deleted" = task.status;
    void followTaskStatus(task.id, controller.signal, (next) => {
      setLive(next);
      const now = next === "deleted" ? "deleted" : next.status;
      if (inProgress(last) && !inProgress(now)) settled.current();
      last = now;
    });
    return () => controller.abort();
  }, [task.id, follow, round]);
  return { live, restart: (status: TaskStatus) => (setLive(status), setRound((r) => r + 1)) };
}
