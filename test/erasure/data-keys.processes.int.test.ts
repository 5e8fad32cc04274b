/**
 * Processes sharing the embedded key store (the server and `bun run admin` beside it) make one key per scope, never
 * two, when they ask for new scopes' keys at the same moment; and an erasure by one is seen by the others at once.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decryptField } from "../../src/erasure/field-cipher.ts";
import { dataKeysFile, SqliteDataKeyStore } from "../../src/erasure/sqlite-data-keys.ts";

const dataDir = mkdtempSync(join(tmpdir(), "scribe-key-processes-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
const path = join(dataDir, dataKeysFile);
const scopes = Array.from({ length: 40 }, (_, i) => `task-${i + 1}`);

/** One process: waits for `startAt`, then makes (or finds) every scope's key and encrypts its name with it. */
const maker = `
  import { SqliteDataKeyStore } from ${JSON.stringify(join(import.meta.dir, "../../src/erasure/sqlite-data-keys.ts"))};
  import { encryptField } from ${JSON.stringify(join(import.meta.dir, "../../src/erasure/field-cipher.ts"))};
  const [path, startAt, scopes] = [process.argv[1], Number(process.argv[2]), JSON.parse(process.argv[3])];
  const store = new SqliteDataKeyStore(path);
  await Bun.sleep(Math.max(0, startAt - Date.now()));
  const out = await Promise.all(scopes.map(async (scope) => [scope, await encryptField(scope, await store.keyFor(scope, 1), { scope, eventType: "T", path: "p" })]));
  await store.close();
  console.log(JSON.stringify(out));
`;

test("four processes asking for the same new scopes' keys at once end with one key per scope", async () => {
  new SqliteDataKeyStore(path).close();
  const startAt = Date.now() + 800;
  const children = Array.from({ length: 4 }, (_, i) =>
    Bun.spawn([process.execPath, "-e", maker, path, String(startAt), JSON.stringify(i % 2 ? scopes : [...scopes].reverse())], {
      stdout: "pipe",
      stderr: "inherit",
    }),
  );
  const outputs = await Promise.all(children.map(async (child) => JSON.parse(await new Response(child.stdout).text()) as [string, string][]));
  expect(await Promise.all(children.map((child) => child.exited))).toEqual([0, 0, 0, 0]);

  const store = new SqliteDataKeyStore(path);
  try {
    for (const [scope, stored] of outputs.flat()) {
      const key = (await store.find(scope)) as CryptoKey;
      expect(await decryptField(stored, key, { scope, eventType: "T", path: "p" })).toBe(scope);
    }
    expect(outputs.flat().length).toBe(4 * scopes.length);
  } finally {
    await store.close();
  }
}, 30_000);
