import { assertNever } from "../core/decider.ts";
import { NotFoundError, ValidationFailedError } from "../core/errors.ts";
import type { Disk, TaskEvent, TaskStatus } from "./events.ts";
import { hasTranscript } from "./transcripts.ts";
import { evolveFreshness, noSummaryYet, type SummaryFreshness } from "./summary-freshness.ts";
import type { StreamVersion } from "../http/if-match.ts";

export type TaskState =
  | { status: "none" }
  | { status: "deleted" }
  /**
   * `recognised`: the service transcribed it, so its `cost` is what was charged and is no client's to change.
   * `mediaReady`: this attempt's media is in the blob store (an upload, or fetched); `supplied`: created with its
   * transcript; `requeues`: this attempt's re-drives by the sweeper; `freshness`: which transcript the summary is of;
   * `unshown`: how many of the last events are bookkeeping (taskVersion); absent in states saved before it was kept.
   */
  | {
      status: "live";
      taskId: number;
      userId: number;
      name: string;
      disk: Disk;
      state: TaskStatus;
      attempts: number;
      folderId: number | null;
      shared: boolean;
      recognised: boolean;
      mediaReady: boolean;
      supplied: boolean;
      requeues: number;
      freshness: SummaryFreshness;
      unshown?: number;
    };

export type LiveTask = Extract<TaskState, { status: "live" }>;

/** A deleted or never-created task is "not found" for every command, like another user's task. */
export function live(state: TaskState): LiveTask {
  if (state.status !== "live") throw new NotFoundError("Task not found.");
  return state;
}

/** Whether `attempt` of the task is the one being transcribed (not deleted, failed, finished or retried since). */
export const isScribingAttempt = (state: TaskState, attempt: number): boolean =>
  state.status === "live" && state.state === "scribing" && state.attempts === attempt;

/** The cost of a task the service transcribed is what it was charged: no client may change it. */
export function assertCostCorrectable(state: TaskState): void {
  if (state.status === "live" && state.recognised) {
    throw new ValidationFailedError({ cost: ["The cost of a transcribed task is the time it was charged and cannot be changed."] });
  }
}

/**
 * Events the service records for its own bookkeeping: a heavy export made or asked for, a lost step sent again. They
 * change nothing `GET /api/tasks/{id}` shows, so the task's version (its ETag) stays: a person editing a task that has
 * just finished is not refused because its pdf was made meanwhile.
 */
export const bookkeepingEvents: ReadonlySet<TaskEvent["type"]> = new Set(["ExportGenerated", "ExportRequested", "TaskRequeued"]);

/** The task's version at stream `revision`: the revision of its last event that changed what it shows. */
export const taskVersion = (state: TaskState, revision: number): StreamVersion => ({
  shown: state.status === "live" ? revision - (state.unshown ?? 0) : revision,
  revision,
});

/** How a task's events fold into its state (the decider's evolve). */
export function evolveTask(state: TaskState, event: TaskEvent): TaskState {
  const next = evolveRecord(state, event);
  if (next.status !== "live") return next;
  const unshown = bookkeepingEvents.has(event.type) && state.status === "live" ? (state.unshown ?? 0) + 1 : 0;
  return { ...next, freshness: evolveFreshness(next.freshness, event), unshown };
}

function evolveRecord(state: TaskState, event: TaskEvent): TaskState {
  if (event.type === "TaskCreated") {
    const { taskId, userId, name, disk } = event.data;
    return {
      status: "live",
      taskId,
      userId,
      name,
      disk,
      state: "pending",
      attempts: 1,
      folderId: null,
      shared: false,
      recognised: false,
      mediaReady: disk === "objstore",
      supplied: hasTranscript(event.data),
      requeues: 0,
      freshness: noSummaryYet,
    };
  }
  if (state.status !== "live") return state;
  switch (event.type) {
    case "TaskRenamed":
      return { ...state, name: event.data.name };
    case "TaskMoved":
      return { ...state, folderId: event.data.folder?.id ?? null };
    case "TaskShared":
      return { ...state, shared: true };
    case "TaskUnshared":
      return { ...state, shared: false };
    case "TaskDeleted":
      return { status: "deleted" };
    case "TaskRetried":
      return { ...state, state: event.data.status, attempts: event.data.attempt, mediaReady: event.data.status === "pending", requeues: 0 };
    case "MediaFetchStarted":
      return { ...state, state: "waiting" };
    case "MediaFetched":
      return { ...state, state: "pending", mediaReady: true };
    case "TaskRequeued":
      return { ...state, requeues: event.data.requeue };
    case "TranscriptionStarted":
      return { ...state, state: "scribing", recognised: true };
    case "TaskFinished":
      return { ...state, state: "finished" };
    case "TaskFailed":
      return { ...state, state: "failed" };
    case "TranscriptEdited":
    case "TaskDetailsCorrected":
    case "TaskRated":
    case "SummaryRefreshed":
    case "SummaryFailed":
    case "ExportGenerated":
    case "ExportRequested":
      return state;
    default:
      return assertNever(event);
  }
}
