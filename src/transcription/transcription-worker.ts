import { reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { NotFoundError } from "../core/errors.ts";
import { isScribingAttempt, TaskCommands, taskIdOf, taskStateOf } from "../tasks/commands.ts";
import { supersededByRequeue, taskEventTypes, type TaskEvent } from "../tasks/events.ts";
import { taskFacts } from "./media-source.ts";
import { TaskCancelled, type TranscriptionPipeline } from "./pipeline.ts";
import type { Worker } from "../core/worker.ts";
import { hasTranscript } from "../tasks/transcripts.ts";
import { logger } from "../logging/logger.ts";

const log = logger("transcription");

/** After this many deliveries an unexpected error fails the task instead of asking for another delivery. */
const failAfterDeliveries = 3;

/**
 * Whether an event makes a task ready for recognition: an upload's task is created (objstore, no
 * transcript), a remote task's media has been fetched, a failed objstore task is retried, or the stuck-task
 * sweeper re-drives a task whose trigger was lost.
 */
export function isTranscriptionTrigger(event: TaskEvent): boolean {
  switch (event.type) {
    case "TaskCreated":
      return event.data.disk === "objstore" && !hasTranscript(event.data);
    case "MediaFetched":
      return true;
    case "TaskRetried":
      return event.data.status === "pending";
    case "TaskRequeued":
      return event.data.step === "transcribe";
    default:
      return false;
  }
}

/**
 * Transcribes tasks. On a trigger it checks the task first: the attempt the trigger was about must
 * still be the current one, and the task pending (it is then marked scribing) or already scribing
 * (a redelivery after a crash: the work is done again, and the task still finishes once, because
 * FinishTask only finishes the attempt in flight). The heartbeat of the worker base keeps the
 * message ours while the work runs.
 */
export function transcriptionWorker(
  store: EventStore,
  pipeline: TranscriptionPipeline,
  options: { ackWaitMs: number; tasksAtOnce: number; cancelCheckMs?: number },
): Worker<TaskEvent> {
  const tasks = new TaskCommands(store);
  const running = new Set<AbortController>();
  return {
    name: "transcription",
    subject: "scribe.task.>",
    eventTypes: taskEventTypes,
    ackWaitMs: options.ackWaitMs,
    // Tasks mostly wait for a recogniser (shared fairly between accounts by the pipeline's limiter), so a
    // worker takes several: a short clip starts at once instead of queueing behind long recordings.
    concurrency: options.tasksAtOnce,
    abort() {
      for (const controller of running) controller.abort(new Error("the service is stopping"));
    },
    async handle(recorded, message) {
      const taskId = taskIdOf(recorded);
      if (taskId === null || !isTranscriptionTrigger(recorded)) return;
      const metadata = reactingTo(recorded, "transcription");
      const events = await tasks.events(taskId);
      const triggerAttempt = taskStateOf(events.filter((e) => e.revision <= recorded.revision));
      const state = taskStateOf(events);
      if (state.status !== "live" || triggerAttempt.status !== "live" || state.attempts !== triggerAttempt.attempts) return;
      // The sweeper re-drove the task after this trigger: the re-drive's delivery does the work, once.
      if (supersededByRequeue(events, recorded)) return;
      if (state.state === "pending") {
        try {
          const started = await tasks.run(taskId, { type: "StartTranscription" }, { metadata });
          if (started.state.status !== "live" || started.state.state !== "scribing" || started.state.attempts !== state.attempts) return;
        } catch (error) {
          if (error instanceof NotFoundError) return;
          throw error;
        }
      } else if (state.state !== "scribing") return;

      const facts = taskFacts(await tasks.events(taskId));
      if (!facts || facts.supplied) return;
      const controller = new AbortController();
      running.add(controller);
      const watch = watchForCancellation(tasks, taskId, state.attempts, controller, options.cancelCheckMs ?? 500);
      try {
        await pipeline.run(taskId, facts, state.attempts, metadata, controller.signal);
      } catch (error) {
        if (error instanceof NotFoundError) return; // deleted meanwhile
        if (controller.signal.reason instanceof TaskCancelled) {
          // Deleted, failed or retried meanwhile: nothing left to do.
          log.info({ taskId, attempt: state.attempts }, "transcription cancelled: the task moved on");
          return;
        }
        if (controller.signal.aborted || message.deliveryCount < failAfterDeliveries) throw error;
        log.error({ taskId, attempt: state.attempts, deliveryCount: message.deliveryCount, err: error }, "transcription failed unexpectedly: the task fails");
        await tasks.run(taskId, { type: "FailTask", reason: `Transcription failed: ${(error as Error).message}`, attempt: state.attempts }, { metadata });
      } finally {
        clearInterval(watch);
        running.delete(controller);
      }
    },
  };
}

/**
 * Aborts a transcription, within `everyMs`, once its attempt is no longer the one in flight: the task was
 * deleted, failed (the stuck-task sweeper) or retried. Each look reads only the events appended since the
 * last (the process's state cache, loadState), so watching costs one small read per task and interval.
 */
function watchForCancellation(tasks: TaskCommands, taskId: number, attempt: number, controller: AbortController, everyMs: number): Timer {
  let checking = false;
  return setInterval(async () => {
    if (checking || controller.signal.aborted) return;
    checking = true;
    try {
      const { state } = await tasks.state(taskId);
      if (!isScribingAttempt(state, attempt)) controller.abort(new TaskCancelled(taskId));
    } catch {
      // The store is unreachable for now: the next look decides.
    } finally {
      checking = false;
    }
  }, everyMs);
}
