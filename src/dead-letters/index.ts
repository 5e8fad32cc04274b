/** The dead-letters capability: messages no worker could handle, set aside for the operator; its read model and its redrive worker. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { deadLettersProjection } from "./dead-letters-projection.ts";

export { DeadLetters } from "./service.ts";
export { RedriveFailed, redriveWorkerName } from "./redrive-worker.ts";
export { deadLetterRecorder, taskOfReadModel, type DeadLetterRecorder, type DeadLetterFailure } from "./record.ts";
export { openDeadLetterCount, type DeadLetterDocument } from "./dead-letters-projection.ts";

export const capability: Capability<unknown, { adapters: { eventStore: EventStore; documents: DocumentStore } }> = {
  name: "dead-letters",
  projections: [deadLettersProjection],
  /** The redrive worker runs the named worker's handler, which it finds among this process's workers. */
  workers: async ({ adapters: { eventStore, documents } }, { workerNamed }) => {
    const [{ redriveWorker }, { DeadLetters }] = await Promise.all([import("./redrive-worker.ts"), import("./service.ts")]);
    return [redriveWorker(eventStore, new DeadLetters(eventStore, documents), workerNamed)];
  },
};
