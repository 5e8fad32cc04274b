import { streamCategory, type RecordedEvent } from "../src/core/event.ts";
import type { EventStore } from "../src/core/event-store.ts";

/** Every stored event goes to the bus as `scribe.<stream category>.<event type>`, e.g. `scribe.task.TaskCreated`. */
export function subjectFor(event: Pick<RecordedEvent, "streamName" | "type">): string {
  return `scribe.${streamCategory(event.streamName)}.${event.type}`;
}

/**
 * What a bus message carries: where the event is in the log, not its data. Messages stay a few hundred
 * bytes whatever the event (NATS refuses over 1 MB by default), and a worker reads the event as stored.
 */
export type EventReference = Pick<RecordedEvent, "id" | "type" | "streamName" | "revision" | "position">;

export function encodeEvent(event: RecordedEvent): Uint8Array {
  const { id, type, streamName, revision, position } = event;
  return new TextEncoder().encode(JSON.stringify({ id, type, streamName, revision, position } satisfies EventReference));
}

export function decodeReference(data: Uint8Array): EventReference {
  return JSON.parse(new TextDecoder().decode(data)) as EventReference;
}

/** The referenced event as stored, or null when the log no longer has it (a DATA_DIR reset under a live bus). */
export async function loadReferenced(store: EventStore, reference: EventReference): Promise<RecordedEvent | null> {
  const [event] = await store.readStream(reference.streamName, { fromRevision: reference.revision, maxCount: 1 });
  return event && event.id === reference.id ? event : null;
}
