import type { EventMetadata, RecordedEvent } from "../core/event.ts";
import { skipForeignEvent } from "../core/foreign-events.ts";

/** A row of the `events` table as SQLite hands it over. */
export type EventRow = {
  position: number;
  stream_name: string;
  revision: number;
  event_id: string;
  type: string;
  /** Text as this application writes it; another application sharing the file may have written a BLOB. */
  data: string | Uint8Array;
  metadata: string | Uint8Array;
  time: string;
};

/** The columns an EventRow is selected with. */
export const EVENT_COLUMNS = "position, stream_name, revision, event_id, type, data, metadata, time";

/**
 * A row as this application's event, or null when another application sharing the file wrote it (a BLOB, text that
 * is not JSON): skipped with a warning and counted (core/foreign-events.ts), never a halt of every reader at its position.
 */
export function ours(row: EventRow): RecordedEvent | null {
  try {
    return toRecorded(row);
  } catch (error) {
    skipForeignEvent({ streamName: row.stream_name, type: row.type, position: row.position }, error instanceof Error ? error.message : String(error));
    return null;
  }
}

function toRecorded(row: EventRow): RecordedEvent {
  if (typeof row.data !== "string" || typeof row.metadata !== "string") throw new Error("not JSON text (binary)");
  return {
    id: row.event_id,
    type: row.type,
    data: JSON.parse(row.data) as unknown,
    metadata: JSON.parse(row.metadata) as EventMetadata,
    streamName: row.stream_name,
    revision: row.revision,
    position: row.position,
    time: row.time,
  };
}
