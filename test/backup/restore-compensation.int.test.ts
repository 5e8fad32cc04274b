/**
 * restore-compensation.ts on a restored copy whose log holds events stored in the clear (a backup from before the log
 * encrypted them): the erased task gets its TaskDeleted, and its fields are written erased, in no file of the copy.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { byUser, type NewEvent } from "../../src/core/event.ts";
import { dataKeysFile, SqliteDataKeyStore } from "../../src/erasure/sqlite-data-keys.ts";
import { compensateCopy } from "../../src/cli/restore-compensation.ts";
import { loadConfig } from "../../src/config.ts";
import { filesHolding } from "../support/plaintext-scan.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-compensation-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const event = (type: string, data: Record<string, unknown>): NewEvent => ({ id: crypto.randomUUID(), type, data, metadata: byUser(7, "c") });
const secret = `Clearsecret${crypto.randomUUID().replaceAll("-", "")}`;

test("an erased task's clear events are written erased, and the task is deleted in the copy", async () => {
  const clear = new SqliteEventStore(join(dir, "events.sqlite"));
  const created = { taskId: 5, userId: 7, name: secret, path: "uploads/7/0123456789abcdef0123456789abcdef/a.mp3", url: null };
  await clear.append("task-5", [event("TaskCreated", created)], { expectedRevision: "no_stream" });
  await clear.close();
  const keys = new SqliteDataKeyStore(join(dir, dataKeysFile));
  await keys.erase("task-5", 7);
  await keys.close();
  expect(filesHolding(dir, secret).length).toBeGreaterThan(0);

  const ledger = [{ scope: "task-5", accountId: 7, erasedAt: new Date().toISOString() }];
  const done = await compensateCopy(loadConfig({ DATA_DIR: dir, LOG_LEVEL: "warn" }), { dir, ledger, keysDestroyed: 0 });
  expect(done).toEqual({ tasksDeleted: 1, accountsErased: 0, blobsRemoved: 0, readModelsRebuilt: true });
  expect(filesHolding(dir, secret)).toEqual([]);
});
