/**
 * After an erasure the key's bytes are nowhere on disk: not in the database file, not in its WAL, not in its shared
 * memory file (src/erasure/sqlite-data-keys.ts: secure_delete, the WAL checkpointed and truncated at each erasure).
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataKeysFile, SqliteDataKeyStore } from "../../src/erasure/sqlite-data-keys.ts";

const dataDir = mkdtempSync(join(tmpdir(), "scribe-key-bytes-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const path = join(dataDir, dataKeysFile);

/** The raw key of each scope, read behind the store's back (its CryptoKeys cannot be exported). */
function rawKeys(): Map<string, Buffer> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db.query<{ scope: string; key: Uint8Array | null }, []>("SELECT scope, key FROM data_keys").all();
    return new Map(rows.filter((row) => row.key !== null).map((row) => [row.scope, Buffer.from(row.key as Uint8Array)]));
  } finally {
    db.close();
  }
}

/** Every file of the store's folder (database, -wal, -shm), in one buffer. */
function filesOnDisk(): { names: string[]; bytes: Buffer } {
  const folder = join(dataDir, "keys");
  const names = readdirSync(folder);
  return { names, bytes: Buffer.concat(names.map((name) => readFileSync(join(folder, name)))) };
}

test("an erased key's 32 bytes are in no file of the key store, WAL included, while live keys are", async () => {
  const store = new SqliteDataKeyStore(path);
  const scopes = Array.from({ length: 60 }, (_, i) => `task-${i + 1}`);
  for (const scope of scopes) await store.keyFor(scope, 1 + (Number(scope.slice(5)) % 3));
  // Half the keys in the database file (checkpointed), half in the WAL only: an erasure must reach both.
  const early = new Database(path);
  early.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  early.close();
  for (let i = 61; i <= 90; i++) await store.keyFor(`task-${i}`, 1);
  const keys = rawKeys();
  expect(keys.size).toBe(90);
  expect(existsSync(`${path}-wal`)).toBe(true);

  const erased = ["task-3", "task-40", "task-75", "task-88"];
  for (const scope of erased) await store.erase(scope);
  expect(await store.eraseAccount(2)).toBeGreaterThan(0);
  const gone = [...keys.keys()].filter((scope) => erased.includes(scope) || (Number(scope.slice(5)) % 3 === 1 && Number(scope.slice(5)) <= 60));

  const open = filesOnDisk();
  expect(open.names).toContain("data-keys.sqlite");
  for (const scope of gone) expect(open.bytes.includes(keys.get(scope) as Buffer)).toBe(false);
  const live = [...keys.keys()].filter((scope) => !gone.includes(scope));
  expect(live.length).toBeGreaterThan(30);
  for (const scope of live) expect(open.bytes.includes(keys.get(scope) as Buffer)).toBe(true);

  await store.close();
  const closed = filesOnDisk();
  for (const scope of gone) expect(closed.bytes.includes(keys.get(scope) as Buffer)).toBe(false);
});

test("the key store's folder and file are the service user's alone", async () => {
  const store = new SqliteDataKeyStore(path);
  await store.keyFor("task-1000", 1);
  await store.close();
  const { statSync } = await import("node:fs");
  expect(statSync(join(dataDir, "keys")).mode & 0o777).toBe(0o700);
  expect(statSync(path).mode & 0o777).toBe(0o600);
});
