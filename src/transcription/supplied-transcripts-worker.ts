import { reactingTo, type RecordedEvent } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { loadState } from "../core/state-cache.ts";
import { handle } from "../core/command-handler.ts";
import { taskDecider } from "../tasks/decider.ts";
import type { TaskEvent } from "../tasks/events.ts";
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
export function suppliedTranscriptWorker(store: EventStore, transcripts: TranscriptStore, summarizer: Summarizer, heavyWork: Semaphore): Worker {
  return {
    name: "supplied-transcripts",
    // Every task event (not only TaskCreated): the stuck-task sweeper's TaskRequeued re-drives a creation whose message was lost.
    subject: "scribe.task.>",
    async handle(recorded) {
      const event = await createdBy(store, recorded);
      if (!event || !hasTranscript(event.data)) return;
      const { state } = await loadState(store, recorded.streamName, taskDecider);
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
      const finished = await handle(
        store,
        recorded.streamName,
        taskDecider,
        (current) =>
          taskDecider.decide({ type: "FinishTask", transcript: null, duration, cost: event.data.cost, summary, mindmap, attempt: state.attempts }, current),
        { metadata },
      );
      if (finished.events.length > 0 && failure)
        await handle(store, recorded.streamName, taskDecider, (state) => taskDecider.decide({ type: "RecordSummaryFailure", reason: failure }, state), {
          metadata,
        });
    },
  };
}

type Created = Extract<TaskEvent, { type: "TaskCreated" }>;

/** The creation a delivery asks to carry on: the TaskCreated itself, or the one a re-drive of a supplied task names. */
async function createdBy(store: EventStore, recorded: RecordedEvent): Promise<Created | null> {
  const event = recorded as unknown as TaskEvent;
  if (event.type === "TaskCreated") return event;
  if (event.type !== "TaskRequeued" || event.data.step !== "supply") return null;
  const [first] = (await store.readStream(recorded.streamName, { maxCount: 1 })) as unknown as TaskEvent[];
  return first?.type === "TaskCreated" ? first : null;
}
