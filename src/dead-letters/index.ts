/** The dead-letters capability: messages no worker could handle, set aside for the operator; its read model and its redrive worker. */
import type { Projection } from "../core/projection.ts";
import type { Worker } from "../core/worker.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { deadLettersProjection } from "./dead-letters-projection.ts";
import { redriveWorker } from "./redrive-worker.ts";
import { DeadLetters } from "./service.ts";

export { DeadLetters } from "./service.ts";
export { RedriveFailed, redriveWorkerName } from "./redrive-worker.ts";
export { deadLetterRecorder, taskOfReadModel, type DeadLetterRecorder, type DeadLetterFailure } from "./record.ts";
export { openDeadLetterCount, type DeadLetterDocument } from "./dead-letters-projection.ts";

export const projections: Projection[] = [deadLettersProjection];

/** The redrive worker runs the named worker's handler: `workerNamed` finds it among this process's workers. */
export function workers(
  { eventStore, documents }: { eventStore: EventStore; documents: DocumentStore },
  workerNamed: (name: string) => Worker | undefined,
): Worker[] {
  return [redriveWorker(eventStore, new DeadLetters(eventStore, documents), workerNamed)];
}
