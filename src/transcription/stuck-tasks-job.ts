import { bySystem } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { handle } from "../core/command-handler.ts";
import { taskDecider } from "../tasks/decider.ts";
import { taskStream } from "../tasks/events.ts";
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
  const failed: number[] = [];
  for (const task of scribing) {
    const facts = taskFacts(await store.readStream(taskStream(task.id)));
    if (!facts?.scribingSince || now.getTime() - Date.parse(facts.scribingSince) < deadlineSeconds * 1000) continue;
    const reason = `Transcription did not finish within ${formatDuration(deadlineSeconds)}; retry the task to try again.`;
    const result = await handle(
      store,
      taskStream(task.id),
      taskDecider,
      (state) => taskDecider.decide({ type: "FailTask", reason, attempt: facts.attempts }, state),
      {
        metadata: bySystem("stuck-tasks", `stuck-task-${task.id}-${facts.attempts}`),
      },
    );
    if (result.events.length > 0) failed.push(task.id);
  }
  return failed;
}

/** Sweeps every minute (or a quarter of the deadline, when that is shorter). */
export function startStuckTaskSweeper(store: EventStore, db: DocumentStore, deadlineSeconds: number): PeriodicJob {
  return startPeriodicJob(
    "stuck-task sweeper",
    async () => {
      const failed = await failStuckTasks(store, db, new Date(), deadlineSeconds);
      if (failed.length > 0) log.warn({ taskIds: failed, deadlineSeconds }, "stuck tasks failed: scribing for longer than the deadline");
    },
    { everyMs: Math.min(60_000, Math.max(1000, (deadlineSeconds * 1000) / 4)), across: db },
  );
}
