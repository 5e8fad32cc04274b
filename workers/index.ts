import type { Capability, WorkerLookup } from "../src/core/capability.ts";
import type { Worker } from "../src/core/worker.ts";
import type { EventStore } from "../src/core/event-store.ts";
import type { DocumentStore } from "../src/readmodels/port.ts";
import { deadLetterRecorder, taskOfReadModel, type DeadLetterRecorder } from "../src/dead-letters/index.ts";

/**
 * Every worker of the service, from each capability's manifest in the list's order (the composition root hands it the
 * list and what the workers are built from); each runs as a durable consumer on the bus. The dead letters' redrive
 * worker finds a retried message's worker among them by name.
 */
export async function createWorkers<Work>(capabilities: readonly Capability<never, Work>[], parts: Work): Promise<Worker[]> {
  const byName = new Map<string, Worker>();
  const others: WorkerLookup = { workerNamed: (name) => byName.get(name) };
  const built = await Promise.all(capabilities.map((capability) => capability.workers?.(parts, others) ?? []));
  const workers = built.flat();
  for (const worker of workers) byName.set(worker.name, worker);
  return workers;
}

/** What the workers record a message they could not handle with: the task it is about is named from the tasks read model. */
export function createDeadLetterRecorder({ eventStore, documents }: { eventStore: EventStore; documents: DocumentStore }): DeadLetterRecorder {
  return deadLetterRecorder(eventStore, { taskOf: taskOfReadModel(documents) });
}
