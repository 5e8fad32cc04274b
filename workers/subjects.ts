import { streamCategory, type RecordedEvent } from "../src/core/event.ts";

/** Every stored event goes to the bus as `scribe.<stream category>.<event type>`, e.g. `scribe.task.TaskCreated`. */
export function subjectFor(event: Pick<RecordedEvent, "streamName" | "type">): string {
  return `scribe.${streamCategory(event.streamName)}.${event.type}`;
}

export function encodeEvent(event: RecordedEvent): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(event));
}

export function decodeEvent(data: Uint8Array): RecordedEvent {
  return JSON.parse(new TextDecoder().decode(data)) as RecordedEvent;
}
