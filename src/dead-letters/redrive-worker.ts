import { bySystem, type RecordedEvent } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { loadState } from "../core/state-cache.ts";
import { deliverTo, type Worker } from "../core/worker.ts";
import { withLogContext } from "../logging/logger.ts";
import { deadLetterDecider } from "./decider.ts";
import type { DeadLetterEvent, DeadLetterReference } from "./events.ts";

import type { FailedEvent } from "./record.ts";
import type { DeadLetters } from "./service.ts";

type Retried = Extract<DeadLetterEvent, { type: "DeadLetterRetried" }>;

export const redriveWorkerName = "dead-letter-redrive";

/**
 * A retried message failed again. The worker base records the dead letter for the worker and event named here,
 * not for the redrive worker and its DeadLetterRetried, so the operator sees the same dead letter open again.
 */
export class RedriveFailed extends Error {
  declare readonly worker: string;
  declare readonly event: FailedEvent;
  declare readonly failure: unknown;

  constructor(worker: string, event: FailedEvent, failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
    this.name = "RedriveFailed";
    // Not enumerable: a log line of this error shows the failure (its cause), never the event's data.
    Object.defineProperties(this, { worker: { value: worker }, event: { value: event }, failure: { value: failure } });
  }
}

/** The event as stored, or null when the log no longer has it at that place. */
async function originalOf(store: EventStore, letter: DeadLetterReference): Promise<RecordedEvent | null> {
  const [event] = await store.readStream(letter.stream, { fromRevision: letter.revision, maxCount: 1 });
  return event && event.id === letter.eventId ? event : null;
}

/**
 * Runs a retried dead letter's worker on its event again, on whichever process runs the workers (the bus may be
 * inside the server). The handler is the worker's own, so it checks the current state first as on any delivery:
 * a message whose work was done some other way meanwhile changes nothing. Only a dead letter still being retried
 * runs: a redelivered DeadLetterRetried after it was resolved or dropped does nothing.
 */
export function redriveWorker(store: EventStore, deadLetters: DeadLetters, workerNamed: (name: string) => Worker | undefined): Worker<Retried> {
  return {
    name: redriveWorkerName,
    subject: "scribe.deadletter.DeadLetterRetried",
    eventTypes: ["DeadLetterRetried"],
    concurrency: 1,
    async handle(recorded, message) {
      const letter = recorded.data;
      const { state } = await loadState(store, recorded.streamName, deadLetterDecider);
      if (state.status !== "retrying") return;
      const target = workerNamed(letter.worker);
      const original = await originalOf(store, letter);
      // Nothing to run: the failure is kept against the letter's own reference, so the operator sees why.
      const reference: FailedEvent = original ?? {
        id: letter.eventId,
        type: letter.eventType,
        streamName: letter.stream,
        revision: letter.revision,
        data: null,
        metadata: recorded.metadata,
      };
      if (!target) throw new RedriveFailed(letter.worker, reference, new Error(`no worker named ${letter.worker} runs here`));
      if (!original) throw new RedriveFailed(letter.worker, reference, new Error(`the event ${letter.eventId} is no longer in ${letter.stream}`));
      try {
        await withLogContext({ worker: target.name, correlationId: original.metadata.correlationId }, () => deliverTo(target, original, message));
      } catch (error) {
        throw new RedriveFailed(target.name, original, error);
      }
      await deadLetters.resolve(letter.deadLetterId, bySystem(redriveWorkerName, recorded.metadata.correlationId, recorded.id));
    },
  };
}
