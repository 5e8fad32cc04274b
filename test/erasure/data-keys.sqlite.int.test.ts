/** The data-key store contract on the embedded adapter: one SQLite file, opened by several handles as processes would. */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoDataKeyStore } from "../../src/erasure/mongodb-data-keys.ts";
import { openDataKeyStore } from "../../src/erasure/open-data-keys.ts";
import { SqliteDataKeyStore, dataKeysFile } from "../../src/erasure/sqlite-data-keys.ts";
import { dataKeysContract } from "../contracts/data-keys.contract.ts";

const dataDir = mkdtempSync(join(tmpdir(), "scribe-data-keys-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

dataKeysContract("SQLite (DATA_DIR/keys/data-keys.sqlite)", {
  open: async () => new SqliteDataKeyStore(join(dataDir, dataKeysFile)),
  // PRAGMA data_version tells a handle at once that another committed.
  staleForMs: 0,
});

test("openDataKeyStore: the embedded file under DATA_DIR, MongoDB's collection when MONGODB_URL is set", async () => {
  const embedded = openDataKeyStore({ dataDir, mongodbUrl: null, mongodbDatabase: "scribe" });
  expect(embedded).toBeInstanceOf(SqliteDataKeyStore);
  await embedded.close();
  expect(existsSync(join(dataDir, "keys", "data-keys.sqlite"))).toBe(true);
  // The client connects on first use: nothing is reached here.
  const cluster = openDataKeyStore({ dataDir, mongodbUrl: "mongodb://127.0.0.1:1", mongodbDatabase: "scribe" });
  expect(cluster).toBeInstanceOf(MongoDataKeyStore);
  await cluster.close();
});
