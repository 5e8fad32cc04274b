/**
 * Backups and erasure (issue 32, item 6): a backup taken before a task was deleted and an account erased, restored
 * after (`admin restore`, into the same DATA_DIR, its key store kept), brings none of it back: no file under DATA_DIR
 * holds their plaintext (write-ahead logs checkpointed), the erased account cannot sign in, the deleted task is 404,
 * and the other account's task is there as it was. A restore into a new DATA_DIR with no ledger warns, and one with
 * `--erasures-from` the newer backup erases again what that backup's ledger records.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { until, workersCaughtUp } from "../support/eventually.ts";
import { runCli } from "../support/service-process.ts";
import { expectReadModelsEqualReplay } from "../support/read-models-replay.ts";
import { filesHolding, finishedTaskWithMedia } from "../support/plaintext-scan.ts";
import { takeBackup } from "../../src/backup/backup.ts";
import { loadConfig } from "../../src/config.ts";
import { openAdapters } from "../../src/adapters.ts";
import { startService } from "../../src/service.ts";

const unique = (what: string) => `${what}${crypto.randomUUID().replaceAll("-", "")}`;
const deleted = { name: unique("Deletedname"), file: unique("deletedfile"), words: unique("deletedwords") };
const erasedAccount = { name: unique("Erasedtaskname"), file: unique("erasedfile"), words: unique("erasedwords"), email: `${unique("erased")}@example.com` };
const kept = { name: unique("Keptname"), words: unique("keptwords") };

const work = mkdtempSync(join(tmpdir(), "scribe-restore-erasure-"));
let app: TestApp;
let stopped = false;

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
});
afterAll(async () => {
  if (!stopped) await app.close();
  else rmSync(app.config.dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

/** Moves nothing aside but the key store (what an operator does before `admin restore` into the same DATA_DIR). */
function emptyButKeys(dataDir: string): void {
  for (const name of readdirSync(dataDir)) if (name !== "keys") rmSync(join(dataDir, name), { recursive: true, force: true });
}

const admin = (dataDir: string, ...args: string[]) => runCli("admin", args, { DATA_DIR: dataDir });

test("a backup taken before a task deletion and an account erasure, restored after, brings neither back", async () => {
  const owner = await app.register();
  const leaving = await app.register({ email: erasedAccount.email });
  const deletedId = await finishedTaskWithMedia(app, owner, deleted.name, deleted.file, deleted.words);
  const keptId = await finishedTaskWithMedia(app, owner, kept.name, unique("keptfile"), kept.words);
  const erasedTaskId = await finishedTaskWithMedia(app, leaving, erasedAccount.name, erasedAccount.file, erasedAccount.words);
  await workersCaughtUp(app);
  const dataDir = app.config.dataDir;
  const backupDir = join(work, "before");
  await takeBackup(dataDir, backupDir);

  expect((await app.request("DELETE", `/api/tasks/${deletedId}`, { token: owner.token })).status).toBe(200);
  expect((await app.request("DELETE", "/api/user", { token: leaving.token, json: { password: leaving.password } })).status).toBe(204);
  for (const scope of [`task-${deletedId}`, `task-${erasedTaskId}`, `account-${leaving.id}`])
    await until(`${scope}'s key destroyed`, async () => (await app.adapters.dataKeys.find(scope)) === "erased");
  await workersCaughtUp(app);
  const newerBackup = join(work, "after");
  await takeBackup(dataDir, newerBackup);
  await app.service.stop();
  await app.adapters.close();
  stopped = true;

  // What the old backup holds, and a restore must not bring back.
  const secrets = [...Object.values(deleted), ...Object.values(erasedAccount)];
  for (const text of secrets) expect({ text, held: filesHolding(backupDir, text).length > 0 }).toEqual({ text, held: true });
  emptyButKeys(dataDir);
  const restore = await admin(dataDir, "restore", backupDir);
  expect({ code: restore.code, stderr: restore.stderr }).toEqual({ code: 0, stderr: "" });
  expect(restore.stdout).toContain("2 tasks deleted and 1 accounts erased again");
  for (const text of secrets) expect({ text, files: filesHolding(dataDir, text) }).toEqual({ text, files: [] });
  expect(filesHolding(dataDir, kept.words).length).toBeGreaterThan(0);

  const config = loadConfig({ ...scriptPace, LOG_LEVEL: "warn", TRANSCRIPTION_WORKER: "off", DATA_DIR: dataDir });
  const adapters = await openAdapters(config);
  const service = await startService(config, adapters);
  try {
    const request = (method: string, path: string, token?: string, json?: unknown) =>
      service.app!.handle(
        new Request(`http://localhost:3000${path}`, {
          method,
          headers: { ...(token && { authorization: `Bearer ${token}` }), ...(json !== undefined && { "content-type": "application/json" }) },
          body: json === undefined ? undefined : JSON.stringify(json),
        }),
      );
    expect((await request("POST", "/api/login", undefined, { email: leaving.email, password: leaving.password })).status).toBe(401);
    expect((await request("GET", "/api/user", leaving.token)).status).toBe(401);
    expect((await request("GET", "/api/user", owner.token)).status).toBe(200);
    // Its email is free again, as the erasure left it.
    const again = { name: "New", email: leaving.email, password: "another password", password_confirmation: "another password" };
    expect((await request("POST", "/api/register", undefined, again)).status).toBe(201);
    expect((await request("GET", `/api/tasks/${deletedId}`, owner.token)).status).toBe(404);
    expect((await request("GET", `/api/tasks/${deletedId}/transcript`, owner.token)).status).toBe(404);
    const keptTask = await request("GET", `/api/tasks/${keptId}`, owner.token);
    expect(keptTask.status).toBe(200);
    expect(((await keptTask.json()) as { name: string }).name).toBe(kept.name);
    const search = await request("GET", `/api/tasks?search=${deleted.words}`, owner.token);
    expect(((await search.json()) as { data: unknown[] }).data).toEqual([]);
  } finally {
    await service.stop();
    await adapters.close();
  }
  // The read models the restore built again, caught up with what the service appended, equal a replay of the log.
  expect((await admin(dataDir, "users")).code).toBe(0);
  await expectReadModelsEqualReplay(dataDir);

  // Into a new DATA_DIR: without a ledger it warns; with the newer backup's, it erases again.
  const warned = await admin(join(work, "no-ledger"), "restore", backupDir);
  expect(warned.code).toBe(0);
  expect(warned.stderr).toContain("WARNING: no ledger of erasures was found");
  const fresh = join(work, "fresh");
  const withLedger = await admin(fresh, "restore", backupDir, "--erasures-from", newerBackup);
  expect({ code: withLedger.code, stderr: withLedger.stderr }).toEqual({ code: 0, stderr: "" });
  for (const text of secrets) expect({ text, files: filesHolding(fresh, text) }).toEqual({ text, files: [] });
}, 60_000);
