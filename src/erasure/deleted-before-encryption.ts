import type { Database } from "bun:sqlite";
import { taskIdOf } from "../tasks/events.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { isEncryptedField } from "./field-cipher.ts";
import { taskScope, uploadOfPath, uploadScope } from "./key-scopes.ts";
import { forgetDecryptedFields } from "./decrypted-fields.ts";

type Row = { stream_name: string; data: string };

const ownerIn = (data: string): number | null => {
  const owner = (JSON.parse(data) as { userId?: unknown } | null)?.userId;
  return typeof owner === "number" && Number.isSafeInteger(owner) && owner > 0 ? owner : null;
};

/**
 * The first pass of `encrypt-events`: the tasks deleted before the log encrypted anything never had their keys
 * destroyed (there were none; the task-erasure worker came later), so sealing their events would make them live keys,
 * and their content would never be erased. Their scopes, and those of the uploads they were made from, are erased
 * first (a tombstone, no key is ever made for them), so the second pass writes their personal fields erased.
 * Returns how many tasks it erased; run again, it erases them again, which changes nothing.
 */
export async function eraseTasksDeletedBeforeEncryption(db: Database, keys: DataKeyStore): Promise<number> {
  // A full scan of the log, once per run: `type` has no index, and an admin command may take its time.
  const deleted = db.prepare<Row, []>("SELECT stream_name, data FROM events WHERE type = 'TaskDeleted'").all();
  const created = db.prepare<Row, [string]>("SELECT stream_name, data FROM events WHERE stream_name = ? AND type = 'TaskCreated' LIMIT 1");
  const erasedScopes: string[] = [];
  let tasks = 0;
  for (const row of deleted) {
    const taskId = taskIdOf({ streamName: row.stream_name });
    if (taskId === null) continue;
    const creation = created.get(row.stream_name);
    // Events that predate `userId` on every task event name the owner on the stream's TaskCreated only.
    const owner = ownerIn(row.data) ?? (creation ? ownerIn(creation.data) : null) ?? undefined;
    const scopes = [taskScope(taskId), ...uploadScopesOf(creation)];
    for (const scope of scopes) await keys.erase(scope, owner);
    erasedScopes.push(...scopes);
    tasks++;
  }
  await forgetDecryptedFields(keys, erasedScopes);
  return tasks;
}

/** The upload a task was made from, when its TaskCreated names its path in the clear (encrypted, its deletion erased it). */
function uploadScopesOf(creation: Row | null): string[] {
  const path = creation ? (JSON.parse(creation.data) as { path?: unknown } | null)?.path : null;
  if (typeof path !== "string" || isEncryptedField(path)) return [];
  const upload = uploadOfPath(path);
  return upload === null ? [] : [uploadScope(upload)];
}
