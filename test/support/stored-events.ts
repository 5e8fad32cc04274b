import { join } from "node:path";
import type { EventStore } from "../../src/core/event-store.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { protectEvents } from "../../src/erasure/protected-event-store.ts";
import { dataKeysFile, SqliteDataKeyStore } from "../../src/erasure/sqlite-data-keys.ts";

/**
 * The embedded event store of `dataDir` as the service reads it: personal fields decrypted with the data keys kept
 * beside it (src/erasure), so a test reading a service's log sees what the service sees. No upcasting: the stored
 * shapes. Closing it closes its key store.
 */
export function storedEventsOf(dataDir: string): EventStore {
  return protectEvents(new SqliteEventStore(join(dataDir, "events.sqlite")), new SqliteDataKeyStore(join(dataDir, dataKeysFile)), { closesKeys: true });
}
