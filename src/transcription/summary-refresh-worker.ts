import { reactingTo, type Recorded } from "../core/event.ts";
import type { Worker } from "../core/worker.ts";
import type { TaskEvent } from "../tasks/events.ts";
import { logger } from "../logging/logger.ts";
import type { SummaryRefresher } from "./summary-refresh.ts";

const log = logger("transcription");

type TranscriptEdited = Extract<TaskEvent, { type: "TranscriptEdited" }>;

/**
 * Reacts to each edit of a transcript: the task's summary and mind map are made again `settleMs` after it, unless
 * another edit came meanwhile (its own delivery then waits in turn: the refresher checks the newest edit's time, so
 * edits in several processes postpone it alike). The wait is a timer, not a held message: an edit is acknowledged
 * at once, so a burst of edits never fills the worker's deliveries; a timer that a stop or a crash loses is made
 * good by the refresh job (summary-refresh-job.ts), which sweeps for summaries still due.
 */
export function summaryRefreshWorker(refresher: SummaryRefresher, settleMs: number): Worker<TranscriptEdited> {
  const timers = new Map<number, ReturnType<typeof setTimeout>>();
  const refreshLater = (event: Recorded<TranscriptEdited>) => {
    const taskId = event.data.taskId;
    clearTimeout(timers.get(taskId));
    const wait = Math.max(0, Date.parse(event.time) + settleMs - Date.now());
    const timer = setTimeout(() => {
      timers.delete(taskId);
      refresher.refresh(taskId, reactingTo(event, "summary-refresh")).catch((error: unknown) => {
        log.warn({ taskId, err: error }, "summary refresh after edits failed; the refresh job tries again");
      });
    }, wait);
    timers.set(taskId, timer);
  };
  return {
    name: "summary-refresh",
    subject: "scribe.task.TranscriptEdited",
    eventTypes: ["TranscriptEdited"],
    async handle(event) {
      refreshLater(event);
    },
    abort() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}
