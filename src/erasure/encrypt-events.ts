import { join } from "node:path";
import type { EventMetadata } from "../core/event.ts";
import { openEventsDatabase } from "../eventstore/sqlite-file.ts";
import { taskIdOf } from "../tasks/events.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { personalFieldsOf } from "./personal-fields.ts";
import { sealEvent } from "./protected-event-store.ts";
import { eraseTasksDeletedBeforeEncryption } from "./deleted-before-encryption.ts";

/** The cluster's log cannot be rewritten: the command says so and changes nothing (exit 1). */
export class EncryptEventsRefused extends Error {}

/**
 * `read`: events read; `encrypted`: events rewritten (encrypted, or written erased); `deletedTasks`: tasks found deleted
 * before encryption, whose scopes were erased first; `clear`: events left with personal fields in the clear, their
 * stream naming no owner (no scope, so no key: see key-scopes.ts).
 */
export type EncryptEventsReport = { read: number; encrypted: number; deletedTasks: number; clear: number };

type Row = { position: number; stream_name: string; event_id: string; type: string; data: string; metadata: string };

const BATCH = 500;

/** Where the log is: the embedded one under `dataDir`, or EventStoreDB's when `eventStoreUrl` is set (Config's fields). */
export type LogLocation = { dataDir: string; eventStoreUrl: string | null };

/** Throws EncryptEventsRefused for EventStoreDB's log: checked before anything is opened. */
export function refuseImmutableLog(config: LogLocation): void {
  if (config.eventStoreUrl)
    throw new EncryptEventsRefused(
      "encrypt-events rewrites the embedded event store (DATA_DIR/events.sqlite) only: EventStoreDB's events are immutable, " +
        "so events written there in the clear before encryption stay so (see docs/operations.md, 'Personal data in the event log')",
    );
}

/**
 * `bun run admin encrypt-events`: encrypts, in place, the personal fields of events stored in the clear before the
 * log encrypted them (src/erasure/personal-fields.ts), each under its scope's key as an append would have; a field of a
 * scope erased already is overwritten with its erased value. Tasks deleted before encryption are erased first
 * (deleted-before-encryption.ts), so theirs are written erased too. Fields encrypted already are left as they are, so it can
 * be run again (or after an interruption) and changes nothing more. Runs beside the server: each batch is one short
 * write transaction, and a reader sees either form of a field, which both read the same. The pages the clear text
 * was on are zeroed (`secure_delete`) and the write-ahead log truncated, so no copy stays in the files.
 *
 * The embedded profile only: an EventStoreDB stream is immutable, its events cannot be rewritten.
 */
export async function encryptStoredEvents(config: LogLocation, keys: DataKeyStore): Promise<EncryptEventsReport> {
  refuseImmutableLog(config);
  const db = openEventsDatabase(join(config.dataDir, "events.sqlite"));
  db.exec("PRAGMA secure_delete = ON");
  const rows = db.prepare<Row, [number, number]>(
    "SELECT position, stream_name, event_id, type, data, metadata FROM events WHERE position > ? ORDER BY position LIMIT ?",
  );
  const update = db.prepare<never, [string, number]>("UPDATE events SET data = ? WHERE position = ?");
  const write = db.transaction((changes: [string, number][]) => {
    for (const change of changes) update.run(...change);
  });
  // Events that predate `userId` on every task event name the owner only on the stream's TaskCreated, which comes first.
  const taskOwners = new Map<number, number>();
  const report: EncryptEventsReport = { read: 0, encrypted: 0, deletedTasks: 0, clear: 0 };
  const onUnscoped = () => void report.clear++;
  try {
    report.deletedTasks = await eraseTasksDeletedBeforeEncryption(db, keys);
    for (let after = 0; ; ) {
      const batch = rows.all(after, BATCH);
      if (batch.length === 0) break;
      const changes: [string, number][] = [];
      for (const row of batch) {
        report.read++;
        const sealed = await sealedData(row, keys, taskOwners, onUnscoped);
        if (sealed !== null) changes.push([sealed, row.position]);
      }
      if (changes.length > 0) write.immediate(changes);
      report.encrypted += changes.length;
      after = batch[batch.length - 1]!.position;
    }
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return report;
}

/** The row's data with its clear personal fields encrypted, or null when nothing in it changes. */
async function sealedData(row: Row, keys: DataKeyStore, taskOwners: Map<number, number>, onUnscoped: () => void): Promise<string | null> {
  const taskId = taskIdOf({ streamName: row.stream_name });
  const data = JSON.parse(row.data) as unknown;
  if (row.type === "TaskCreated" && taskId !== null && data !== null && typeof data === "object") {
    const owner = (data as { userId?: unknown }).userId;
    if (typeof owner === "number") taskOwners.set(taskId, owner);
  }
  if (personalFieldsOf(row.type) === undefined) return null;
  const event = { id: row.event_id, type: row.type, data, metadata: JSON.parse(row.metadata) as EventMetadata };
  const ownerOfTask = taskId === null ? null : taskOwners.get(taskId);
  const sealed = await sealEvent(row.stream_name, event, keys, { ownerOfTask, stored: true, onUnscoped });
  const json = sealed === event ? null : JSON.stringify(sealed.data);
  // An erased scope's fields are written as their erased values, in the clear: once so, a run again leaves them.
  return json === row.data ? null : json;
}
