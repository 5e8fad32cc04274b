import { logger } from "../logging/logger.ts";

const log = logger("event store");
let skipped = 0;

/**
 * An event in the log this application cannot read (another application's binary or non-JSON event in a shared
 * EventStoreDB): skipped with a warning and counted, never parsed into a halt of the relay and every projection,
 * which would otherwise retry the same position forever.
 */
export function skipForeignEvent(event: { streamName: string; type: string; position: number }, why: string): void {
  skipped++;
  log.warn({ stream: event.streamName, eventType: event.type, position: event.position, reason: why }, "skipped an event this application cannot read");
}

/** How many foreign events this process has skipped (scribe_foreign_events_skipped_total). */
export const foreignEventsSkipped = (): number => skipped;
