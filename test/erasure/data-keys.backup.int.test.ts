/**
 * Backups and erasure (issue 32, item 6): `admin backup` holds the data keys, and `admin restore` into a DATA_DIR
 * whose key store records erasures made since erases those scopes again, so an old backup brings nothing erased back.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { takeBackup } from "../../src/backup/backup.ts";
import { restoreBackup } from "../../src/backup/restore.ts";
import { decryptField, encryptField } from "../../src/erasure/field-cipher.ts";
import { dataKeysFile, SqliteDataKeyStore } from "../../src/erasure/sqlite-data-keys.ts";
import { openEventsDatabase } from "../../src/eventstore/sqlite-file.ts";

const work = mkdtempSync(join(tmpdir(), "scribe-keys-backup-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const place = (scope: string) => ({ scope, eventType: "TaskCreated", path: "name" });

function rawKey(dataDir: string, scope: string): Buffer {
  const db = new Database(join(dataDir, dataKeysFile), { readonly: true });
  try {
    const row = db.query<{ key: Uint8Array | null }, [string]>("SELECT key FROM data_keys WHERE scope = ?").get(scope);
    if (!row?.key) throw new Error(`${scope} has no key`);
    return Buffer.from(row.key);
  } finally {
    db.close();
  }
}

function bytesUnder(dir: string): Buffer {
  const walk = (at: string): Buffer[] =>
    readdirSync(at, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(at, entry.name)) : [readFileSync(join(at, entry.name))]));
  return Buffer.concat(walk(dir));
}

test("a backup taken before an erasure, restored over the DATA_DIR's key store, keeps the scope erased", async () => {
  const dataDir = join(work, "data");
  openEventsDatabase(join(dataDir, "events.sqlite")).close();
  const store = new SqliteDataKeyStore(join(dataDir, dataKeysFile));
  const kept = await encryptField("kept words", (await store.keyFor("task-1", 7)) as CryptoKey, place("task-1"));
  await store.keyFor("task-2", 7);
  await store.keyFor("account-8", 8);
  await store.erase("task-3", 7);
  const erasedKey = rawKey(dataDir, "task-2");

  const backupDir = join(work, "backup");
  const manifest = await takeBackup(dataDir, backupDir);
  expect(manifest.files[dataKeysFile]?.bytes).toBeGreaterThan(0);
  // What a backup holds: the keys of its time (hence the restore below).
  expect(bytesUnder(backupDir).includes(erasedKey)).toBe(true);
  expect(statSync(join(backupDir, dataKeysFile)).mode & 0o777).toBe(0o600);

  // After the backup: task-2 erased, account 8 erased, and a scope that never had a key.
  await store.erase("task-2");
  expect(await store.eraseAccount(8)).toBe(1);
  await store.erase("task-4", 9);
  await store.close();

  // The operator restores: everything moved aside but the key store.
  for (const name of readdirSync(dataDir)) if (name !== "keys") rmSync(join(dataDir, name), { recursive: true });
  const restored = await restoreBackup(backupDir, dataDir);
  expect(restored.erasures).toEqual({ recorded: 4, keysDestroyed: 2, ledgerFound: true, compensation: null });
  expect(existsSync(join(dataDir, "events.sqlite"))).toBe(true);
  expect(bytesUnder(dataDir).includes(erasedKey)).toBe(false);

  const after = new SqliteDataKeyStore(join(dataDir, dataKeysFile));
  try {
    expect(await after.find("task-2")).toBe("erased");
    expect(await after.keyFor("task-2", 7)).toBeNull();
    expect(await after.find("account-8")).toBe("erased");
    expect(await after.find("task-3")).toBe("erased");
    expect(await after.keyFor("task-4", 9)).toBeNull();
    expect(await decryptField(kept, (await after.find("task-1")) as CryptoKey, place("task-1"))).toBe("kept words");
    expect((await after.erasures()).map((e) => [e.scope, e.accountId])).toEqual(
      expect.arrayContaining([
        ["task-2", 7],
        ["task-3", 7],
        ["account-8", 8],
        ["task-4", 9],
      ]),
    );
  } finally {
    await after.close();
  }
});

test("a restore refuses a DATA_DIR holding more than its key store, and into an empty one brings the backup's keys", async () => {
  const dataDir = join(work, "data-2");
  openEventsDatabase(join(dataDir, "events.sqlite")).close();
  const store = new SqliteDataKeyStore(join(dataDir, dataKeysFile));
  const stored = await encryptField(["a", 1], (await store.keyFor("task-1", 1)) as CryptoKey, place("task-1"));
  await store.close();
  const backupDir = join(work, "backup-2");
  await takeBackup(dataDir, backupDir);
  await expect(restoreBackup(backupDir, dataDir)).rejects.toThrow("is not empty");

  const fresh = join(work, "fresh");
  expect((await restoreBackup(backupDir, fresh)).erasures).toEqual({ recorded: 0, keysDestroyed: 0, ledgerFound: false, compensation: null });
  const after = new SqliteDataKeyStore(join(fresh, dataKeysFile));
  expect(await decryptField(stored, (await after.find("task-1")) as CryptoKey, place("task-1"))).toEqual(["a", 1]);
  await after.close();
});

test("a restore refuses a DATA_DIR whose key store cannot be read, rather than drop its erasures", async () => {
  const dataDir = join(work, "data-3");
  openEventsDatabase(join(dataDir, "events.sqlite")).close();
  await new SqliteDataKeyStore(join(dataDir, dataKeysFile)).close();
  const backupDir = join(work, "backup-3");
  await takeBackup(dataDir, backupDir);
  const target = join(work, "damaged-keys");
  mkdirSync(join(target, "keys"), { recursive: true });
  writeFileSync(join(target, dataKeysFile), "not a database, but the only ledger there was".repeat(100));
  await expect(restoreBackup(backupDir, target)).rejects.toThrow("a restore would lose the erasures it records");
  expect(readdirSync(target)).toEqual(["keys"]);
});

test("--erasures-from: a newer backup's ledger is applied too; a path with no key store is refused before anything is copied", async () => {
  const dataDir = join(work, "data-4");
  openEventsDatabase(join(dataDir, "events.sqlite")).close();
  const store = new SqliteDataKeyStore(join(dataDir, dataKeysFile));
  await store.keyFor("task-1", 1);
  await store.keyFor("task-2", 1);
  const older = join(work, "backup-4-older");
  await takeBackup(dataDir, older);
  await store.erase("task-2");
  await store.close();
  const newer = join(work, "backup-4-newer");
  await takeBackup(dataDir, newer);

  const nowhere = join(work, "restore-4-refused");
  await expect(restoreBackup(older, nowhere, { erasuresFrom: join(work, "no-such-backup") })).rejects.toThrow("--erasures-from");
  expect(existsSync(nowhere)).toBe(false);

  const lost = join(work, "restore-4");
  const restored = await restoreBackup(older, lost, { erasuresFrom: newer });
  expect(restored.erasures).toMatchObject({ recorded: 1, keysDestroyed: 1, ledgerFound: true });
  const after = new SqliteDataKeyStore(join(lost, dataKeysFile));
  expect(await after.find("task-2")).toBe("erased");
  expect(await after.find("task-1")).not.toBeNull();
  await after.close();
  // The newer backup is read, never changed.
  expect((await restoreBackup(newer, join(work, "restore-4-newer"))).manifest.events.count).toBe(0);
});
