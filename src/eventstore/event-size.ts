import type { NewEvent } from "../core/event.ts";

/**
 * The most an event may weigh: its data and metadata as UTF-8 JSON. Bulky payloads (transcripts) go
 * to the blob store and events carry references, so a stream stays cheap to read and every event fits
 * where it must travel: EventStoreDB appends (1 MiB by default), NATS messages (1 MB), MongoDB
 * documents (16 MB), with room to spare.
 */
export const maxEventBytes = 64 * 1024;

/** An append was refused because one of its events is over `maxEventBytes`: nothing was stored. */
export class EventTooLargeError extends Error {
  constructor(
    readonly streamName: string,
    readonly eventType: string,
    readonly bytes: number,
  ) {
    super(`event ${eventType} for ${streamName} is ${bytes} bytes; events are limited to ${maxEventBytes} bytes (bulky data belongs in the blob store)`);
    this.name = "EventTooLargeError";
  }
}

export function eventBytes(event: Pick<NewEvent, "data" | "metadata">): number {
  return Buffer.byteLength(JSON.stringify(event.data) ?? "") + Buffer.byteLength(JSON.stringify(event.metadata) ?? "");
}

/** Every adapter calls this before it stores anything, so the limit is the port's, not one server's. */
export function assertEventSizes(streamName: string, events: readonly NewEvent[]): void {
  for (const event of events) {
    const bytes = eventBytes(event);
    if (bytes > maxEventBytes) throw new EventTooLargeError(streamName, event.type, bytes);
  }
}
