import type { EventStore } from "../src/eventstore/port.ts";
import type { BlobStore } from "../src/blobs/port.ts";
import type { Worker } from "./worker.ts";
import { taskSlotWorker } from "./task-slots.ts";
import { suppliedTranscriptWorker } from "./supplied-transcripts.ts";

export type WorkerDependencies = { eventStore: EventStore; blobs: BlobStore };

/** Every worker of the service; each runs as a durable consumer on the bus. */
export function createWorkers({ eventStore }: WorkerDependencies): Worker[] {
  return [taskSlotWorker(eventStore), suppliedTranscriptWorker(eventStore)];
}
