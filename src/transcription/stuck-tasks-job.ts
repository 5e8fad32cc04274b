import { bySystem, type RecordedEvent } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { NotFoundError } from "../core/errors.ts";
import { isTaskEvent, TaskCommands, taskStateOf } from "../tasks/commands.ts";
import { endedSlotGraceMs, TaskSlots } from "../tasks/slots.ts";
import { accountsHoldingSlotsSince } from "../tasks/slots-projection.ts";
import { formatDuration } from "../notifications/decisions.ts";
import { taskFacts } from "./media-source.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import { logger } from "../logging/logger.ts";

const log = logger("transcription");

/**
 * Fails tasks that have been scribing longer than the deadline (a worker that keeps dying on them,
 * a message dropped after its last delivery): they end failed with a reason and can be retried.
 * Candidates come from the read model; the task's stream decides (when it started scribing, which
 * attempt), and FailTask only fails that attempt while it is in flight, so several sweepers are harmless.
 */
export async function failStuckTasks(store: EventStore, db: DocumentStore, now: Date, deadlineSeconds: number): Promise<number[]> {
  const scribing = await db.collection<TaskDocument>("tasks").find({ status: "scribing" }, { limit: 1000 });
  const tasks = new TaskCommands(store);
  const failed: number[] = [];
  for (const task of scribing) {
    const facts = taskFacts(await tasks.events(task.id));
    if (!facts?.scribingSince || now.getTime() - Date.parse(facts.scribingSince) < deadlineSeconds * 1000) continue;
    const reason = `Transcription did not finish within ${formatDuration(deadlineSeconds)}; retry the task to try again.`;
    const result = await tasks.run(
      task.id,
      { type: "FailTask", reason, attempt: facts.attempts },
      {
        metadata: bySystem("stuck-tasks", `stuck-task-${task.id}-${facts.attempts}`),
      },
    );
    if (result.events.length > 0) failed.push(task.id);
  }
  return failed;
}

/** Re-drives of one attempt before a task whose next step is never taken fails. */
export const maxRequeues = 3;

/** When a pending or waiting task was last moved on (created, retried, its fetch begun or done) or re-driven. */
function awaitingSince(events: readonly RecordedEvent[]): string | null {
  let since: string | null = null;
  for (const recorded of events.filter(isTaskEvent)) {
    const type = recorded.type;
    if (type === "TaskCreated" || type === "TaskRetried" || type === "MediaFetchStarted" || type === "MediaFetched" || type === "TaskRequeued") {
      since = recorded.time;
    }
  }
  return since;
}

/**
 * Re-drives tasks pending or waiting for longer than a quarter of the deadline: the message that should carry them
 * on (their creation, retry, fetched media, or a fetch under way) was lost, after its last delivery, in a crash
 * between steps, or with the in-process bus of a process that died. TaskRequeued names the worker that now takes
 * the task; the trigger it replaces, should it arrive late after all, leaves the work to it. Each re-drive is
 * decided on the task's stream for the re-drives it saw, so several sweepers append one; after `maxRequeues` the
 * task fails with a reason, within about the deadline, and can be retried.
 */
export async function requeueLostTasks(
  store: EventStore,
  db: DocumentStore,
  now: Date,
  deadlineSeconds: number,
): Promise<{ requeued: number[]; failed: number[] }> {
  const boundMs = (deadlineSeconds * 1000) / (maxRequeues + 1);
  const cutoff = new Date(now.getTime() - boundMs).toISOString();
  // updatedAt is at or after the last move (a re-drive leaves it), so it narrows the candidates; the stream decides.
  const awaiting = await db
    .collection<TaskDocument>("tasks")
    .find({ status: { $in: ["pending", "waiting"] }, updatedAt: { $lt: cutoff } }, { sort: { updatedAt: 1 }, limit: 1000 });
  const result = { requeued: [] as number[], failed: [] as number[] };
  const reason = `Transcription did not start within ${formatDuration(deadlineSeconds)}; retry the task to try again.`;
  const tasks = new TaskCommands(store);
  for (const task of awaiting) {
    const events = await tasks.events(task.id);
    const state = taskStateOf(events);
    const since = awaitingSince(events);
    if (state.status !== "live" || since === null || now.getTime() - Date.parse(since) < boundMs) continue;
    const { attempts: attempt, requeues } = state;
    try {
      const { events: appended } = await tasks.run(
        task.id,
        { type: "RequeueTask", attempt, requeues, maxRequeues, reason },
        {
          metadata: bySystem("stuck-tasks", `requeue-task-${task.id}-${attempt}-${requeues}`),
        },
      );
      const [event] = appended;
      if (event?.type === "TaskRequeued") result.requeued.push(task.id);
      else if (event?.type === "TaskFailed") result.failed.push(task.id);
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // deleted meanwhile
    }
  }
  return result;
}

/**
 * Frees the concurrent-task slots of attempts that can no longer finish (finished, failed, retried or deleted) whose
 * release was lost with its message, charging a finished one as the task-slots worker would. Candidates come from
 * the `task_slots` read model; each account's stream decides, and frees a slot once. `graceMs`: how long after its
 * attempt ended a slot is left to the task-slots worker.
 */
export async function freeEndedSlots(store: EventStore, db: DocumentStore, now: Date, graceMs = endedSlotGraceMs): Promise<number[]> {
  const accounts = await accountsHoldingSlotsSince(db, new Date(now.getTime() - graceMs).toISOString());
  const slots = new TaskSlots(store, () => now);
  const freed: number[] = [];
  for (const userId of accounts) {
    try {
      freed.push(...(await slots.releaseEnded(userId, bySystem("stuck-tasks", `free-slots-${userId}`), graceMs)));
    } catch (error) {
      log.warn({ userId, err: error }, "stuck-task sweeper: the account's slots could not be checked");
    }
  }
  return freed;
}

/** Sweeps every minute (or a quarter of the deadline, when that is shorter). */
export function startStuckTaskSweeper(store: EventStore, db: DocumentStore, deadlineSeconds: number): PeriodicJob {
  const slotGraceMs = Math.min(endedSlotGraceMs, (deadlineSeconds * 1000) / (maxRequeues + 1));
  return startPeriodicJob(
    "stuck-task sweeper",
    async () => {
      const now = new Date();
      const lost = await requeueLostTasks(store, db, now, deadlineSeconds);
      if (lost.requeued.length > 0) log.warn({ taskIds: lost.requeued }, "stuck tasks re-driven: pending or waiting with their next step never taken");
      if (lost.failed.length > 0) log.warn({ taskIds: lost.failed, deadlineSeconds }, "stuck tasks failed: never started, re-driven in vain");
      const failed = await failStuckTasks(store, db, now, deadlineSeconds);
      if (failed.length > 0) log.warn({ taskIds: failed, deadlineSeconds }, "stuck tasks failed: scribing for longer than the deadline");
      const freed = await freeEndedSlots(store, db, now, slotGraceMs);
      if (freed.length > 0) log.warn({ taskIds: freed }, "concurrent-task slots freed: their tasks had ended, their release was lost");
    },
    { everyMs: Math.min(60_000, Math.max(1000, (deadlineSeconds * 1000) / 4)), across: db },
  );
}
