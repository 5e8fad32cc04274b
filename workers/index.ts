import type { Worker } from "../src/core/worker.ts";
import type { MediaFetchSettings } from "../src/media/fetch-media.ts";
import { Semaphore } from "../src/core/semaphore.ts";
import * as tasks from "../src/tasks/index.ts";
import * as transcription from "../src/transcription/index.ts";
import * as exports from "../src/exports/index.ts";
import * as uploads from "../src/uploads/index.ts";
import * as accounts from "../src/accounts/index.ts";
import * as webhooks from "../src/webhooks/index.ts";
import * as deadLetters from "../src/dead-letters/index.ts";
import type { DocumentStore } from "../src/readmodels/port.ts";

/** What the workers are built from: each capability's `workers` takes the part it needs. */
export type WorkerDependencies = transcription.TranscriptionWorkerDependencies & {
  mediaFetch?: MediaFetchSettings;
  uploads: uploads.Uploads;
  documents: DocumentStore;
  webhooks: webhooks.WebhookSettings;
};

/**
 * Every worker of the service, from the capabilities that have some; each runs as a durable consumer on the bus.
 * The dead letters' redrive worker finds a retried message's worker among them by name.
 */
export function createWorkers(dependencies: WorkerDependencies): Worker[] {
  const shared = { ...dependencies, heavyWork: dependencies.heavyWork ?? new Semaphore(1) };
  const workers = [
    ...accounts.workers(shared),
    ...tasks.workers(shared),
    ...transcription.workers(shared),
    ...exports.workers(shared),
    ...uploads.workers(shared),
    ...webhooks.workers(shared),
  ];
  const byName = new Map<string, Worker>();
  workers.push(...deadLetters.workers(shared, (name) => byName.get(name)));
  for (const worker of workers) byName.set(worker.name, worker);
  return workers;
}

/** What the workers record a message they could not handle with: the task it is about is named from the tasks read model. */
export function createDeadLetterRecorder({ eventStore, documents }: Pick<WorkerDependencies, "eventStore" | "documents">): deadLetters.DeadLetterRecorder {
  return deadLetters.deadLetterRecorder(eventStore, { taskOf: deadLetters.taskOfReadModel(documents) });
}
