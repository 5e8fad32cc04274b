import type { EventStore } from "../src/eventstore/port.ts";
import { handleCommand } from "../src/core/command-handler.ts";
import { taskDecider } from "../src/tasks/decider.ts";
import type { TaskEvent } from "../src/tasks/events.ts";
import type { Worker } from "./worker.ts";

/**
 * A task created with `segments` already has its transcript: it skips recognition. Summary and mind
 * map are not made yet (the transcription pipeline will), so it finishes with the transcript alone.
 * The decider only finishes a task still in flight, so a redelivery appends nothing.
 */
export function suppliedTranscriptWorker(store: EventStore): Worker {
  return {
    name: "supplied-transcripts",
    subject: "scribe.task.TaskCreated",
    async handle(recorded) {
      const event = recorded as unknown as Extract<TaskEvent, { type: "TaskCreated" }>;
      if (event.data.segments === null) return;
      const lastEnd = event.data.segments.reduce((end, s) => Math.max(end, s.end), 0);
      const duration = event.data.duration ?? Math.ceil(lastEnd / 1000);
      await handleCommand(store, recorded.streamName, taskDecider, { type: "FinishTask", segments: null, duration, cost: event.data.cost, summary: null, mindmap: null }, {
        metadata: { correlationId: recorded.metadata.correlationId, causationId: recorded.id, userId: null },
      });
    },
  };
}
