import { reactingTo, type Recorded } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { taskEventTypes, type TaskEvent } from "../tasks/events.ts";
import { isTaskEvent, TaskCommands, taskIdOf } from "../tasks/commands.ts";
import { hasTranscript, largeTranscriptBytes, type TranscriptStore } from "../tasks/transcripts.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import type { Worker } from "../core/worker.ts";
import type { Semaphore } from "../core/semaphore.ts";

/**
 * A task created with `segments` already has its transcript: it skips recognition and goes straight
 * to the summary step, then finishes (not charged: nothing was recognised). A summary that fails is
 * recorded (SummaryFailed) and the task finishes with its transcript; refresh-summary can try again.
 * The state is checked first and FinishTask only finishes a task in flight, so a redelivery is harmless.
 */
export function suppliedTranscriptWorker(store: EventStore, transcripts: TranscriptStore, summarizer: Summarizer, heavyWork: Semaphore): Worker<TaskEvent> {
  const tasks = new TaskCommands(store);
  return {
    name: "supplied-transcripts",
    // Every task event (not only TaskCreated): the stuck-task sweeper's TaskRequeued re-drives a creation whose message was lost.
    subject: "scribe.task.>",
    eventTypes: taskEventTypes,
    async handle(recorded) {
      const taskId = taskIdOf(recorded);
      if (taskId === null) return;
      const event = await createdBy(tasks, taskId, recorded);
      if (!event || !hasTranscript(event.data)) return;
      const { state } = await tasks.state(taskId);
      if (state.status !== "live" || (state.state !== "pending" && state.state !== "scribing")) return;
      const metadata = reactingTo(recorded, "supplied-transcripts");
      let duration = event.data.duration;
      let summary: string | null = null;
      let mindmap: string | null = null;
      let failure: string | null = null;
      // A large transcript (up to 100,000 segments) is a few hundred megabytes loaded and summarised: heavy work,
      // one at a time with large request bodies (see HEAVY_WORK_AT_ONCE).
      const large = (event.data.transcript?.bytes ?? 0) > largeTranscriptBytes;
      const release = large ? await heavyWork.acquire() : () => {};
      try {
        const segments = (await transcripts.segmentsOf(event.data)) ?? [];
        duration ??= Math.ceil(segments.reduce((end, s) => Math.max(end, s.end), 0) / 1000);
        ({ summary, mindmap } = await summarizer.summarize({ title: state.name, segments }));
      } catch (error) {
        failure = `Summary and mind map could not be made: ${(error as Error).message}`;
      } finally {
        // A large transcript's parsed copy is garbage now: collected before the next heavy work begins.
        if (large) Bun.gc(true);
        release();
      }
      const finish = { type: "FinishTask", transcript: null, duration, cost: event.data.cost, summary, mindmap, attempt: state.attempts } as const;
      const then = failure ? [{ type: "RecordSummaryFailure", reason: failure } as const] : [];
      await tasks.runThen(taskId, finish, then, { metadata });
    },
  };
}

type Created = Recorded<Extract<TaskEvent, { type: "TaskCreated" }>>;

/** The creation a delivery asks to carry on: the TaskCreated itself, or the one a re-drive of a supplied task names. */
async function createdBy(tasks: TaskCommands, taskId: number, event: Recorded<TaskEvent>): Promise<Created | null> {
  if (event.type === "TaskCreated") return event;
  if (event.type !== "TaskRequeued" || event.data.step !== "supply") return null;
  const [first] = (await tasks.events(taskId, { maxCount: 1 })).filter(isTaskEvent);
  return first?.type === "TaskCreated" ? first : null;
}
