/**
 * `bun run admin backup` next to a running service that keeps writing, then `bun run admin restore` into a
 * fresh DATA_DIR and a second service on it: every task that existed before the backup began is there with
 * its transcript and media, every balance is as it was, an upload in progress can be completed, and the
 * restored read models, once caught up, equal a replay of the restored log. And what is refused.
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { UploadClient, type Session } from "../support/upload-client.ts";
import { toneFile } from "../support/uploads.ts";
import { expectReadModelsEqualReplay } from "../support/read-models-replay.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { Checkpoints, checkpointId } from "../../projections/checkpoints.ts";
import { allProjections } from "../../projections/index.ts";
import type { BackupManifest } from "../../src/backup/manifest.ts";
import { manyLogins, manyRequestsPerToken } from "../support/limits.ts";

type TaskView = { id: number; name: string; status: string; segments: unknown[] | null };
type Balance = { remaining_seconds: number; top_up_remaining_seconds: number; used_seconds: number };
type Account = { email: string; client: UploadClient; grant: number };

const work = mkdtempSync(join(tmpdir(), "scribe-backup-test-"));
const serviceEnv = (url: string) => ({ PUBLIC_URL: url, ...manyRequestsPerToken, ...manyLogins });
let service: RunningService;

beforeAll(async () => {
  service = await startServiceProcess(serviceEnv);
});
afterAll(async () => {
  await service?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function register(url: string, email: string): Promise<UploadClient> {
  const password = "password123";
  const response = await fetch(`${url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Backed Up", email, password, password_confirmation: password }),
  });
  if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
  return new UploadClient(url, ((await response.json()) as { token: string }).token);
}

/** A task with its transcript supplied: it finishes without speech recognition. */
async function supplied(client: UploadClient, name: string): Promise<number> {
  const body = { disk: "objstore", name, path: `${name}.txt`, segments: [{ start: 0, end: 2000, text: `${name} was said.` }] };
  for (;;) {
    const response = await client.call("POST", "/api/tasks", body);
    if (response.status === 201) return ((await response.json()) as { id: number }).id;
    if (response.status !== 429) throw new Error(`create: ${response.status} ${await response.text()}`);
    await Bun.sleep(50); // three in flight already
  }
}

const on = (client: UploadClient, url: string) => new UploadClient(url, client.token);
async function taskIds(client: UploadClient): Promise<number[]> {
  const ids: number[] = [];
  for (let page = 1; ; page++) {
    const list = await client.json<{ data: { id: number }[]; last_page: number }>("GET", `/api/tasks?per_page=100&page=${page}`);
    ids.push(...list.data.map((t) => t.id));
    if (page >= list.last_page) return ids.sort((a, b) => a - b);
  }
}
const balance = async (client: UploadClient) => (await client.json<{ balance: Balance }>("GET", "/api/user")).balance;

/** Until no task of the account is pending or being transcribed. */
async function settled(client: UploadClient, timeoutMs = 60_000): Promise<TaskView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tasks = await Promise.all((await taskIds(client)).map((id) => client.json<TaskView>("GET", `/api/tasks/${id}`)));
    if (tasks.every((t) => t.status === "finished" || t.status === "failed")) return tasks;
    if (Date.now() > deadline) throw new Error(`tasks not settled: ${JSON.stringify(tasks.map((t) => [t.id, t.status]))}`);
    await Bun.sleep(100);
  }
}

async function uploadTone(client: UploadClient, bytes: Uint8Array, complete: boolean): Promise<{ session: Session; taskId: number | null }> {
  const session = await client.sign("tone.wav", "audio/wav", bytes.byteLength);
  await client.putAll(session, new Blob([bytes]));
  if (!complete) return { session, taskId: null };
  const response = await client.complete(session, "tone.wav", "audio/wav", bytes.byteLength);
  if (response.status !== 201) throw new Error(`complete: ${response.status} ${await response.text()}`);
  return { session, taskId: ((await response.json()) as { task: { id: number } }).task.id };
}

/** Creates, renames, edits the transcript of and deletes tasks, as fast as it can, until `stop` is called. */
function writeLoad(clients: UploadClient[]): { created: Map<UploadClient, number[]>; stop(): Promise<number> } {
  let running = true;
  let writes = 0;
  const created = new Map(clients.map((client) => [client, [] as number[]]));
  const loop = async (client: UploadClient, n: number) => {
    for (let i = 0; running; i++) {
      const id = await supplied(client, `Load ${n}.${i}`);
      created.get(client)!.push(id);
      await client.json("PATCH", `/api/tasks/${id}`, { name: `Load ${n}.${i} renamed` });
      await client.json("PATCH", `/api/tasks/${id}`, { segments: [{ start: 0, end: 1000, text: `Edited ${n}.${i}.` }] });
      if (i % 3 === 2) await client.json("DELETE", `/api/tasks/${id}`);
      writes += 1;
    }
  };
  const loops = clients.map(loop);
  return {
    created,
    async stop() {
      running = false;
      await Promise.all(loops);
      return writes;
    },
  };
}

function logHead(dataDir: string): number {
  const db = new Database(join(dataDir, "events.sqlite"), { readonly: true });
  try {
    return db.query<{ last: number | null }, []>("SELECT max(position) AS last FROM events").get()?.last ?? 0;
  } finally {
    db.close();
  }
}

const admin = (dataDir: string, ...args: string[]) => runCli("admin", args, { DATA_DIR: dataDir });

describe("bun run admin backup and restore (embedded profile)", () => {
  test("a backup taken under write load restores every task, transcript and balance; the read models equal a replay", async () => {
    const accounts: Account[] = [];
    for (const [i, grant] of [600, 1800, 7200].entries()) {
      const email = `backup-${i}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      accounts.push({ email, client: await register(service.url, email), grant });
    }
    for (const { email, grant } of accounts) expect((await admin(service.dataDir, "grant", email, String(grant))).code).toBe(0);
    for (const [i, { client }] of accounts.entries()) for (const name of [`Notes ${i}a`, `Notes ${i}b`]) await supplied(client, name);
    // Media in the blob store: a finished upload, and one whose parts are sent but not completed.
    const tone = await toneFile("wav", 2);
    const uploaded = await uploadTone(accounts[0]!.client, tone, true);
    const pending = await uploadTone(accounts[1]!.client, tone, false);

    const before = new Map<UploadClient, { tasks: TaskView[]; balance: Balance }>();
    for (const { client } of accounts) before.set(client, { tasks: await settled(client), balance: await balance(client) });
    for (const [i, { client, grant }] of accounts.entries()) {
      expect(before.get(client)!.balance.top_up_remaining_seconds).toBe(grant);
      expect(before.get(client)!.tasks.length).toBe(i === 0 ? 3 : 2);
    }

    const load = writeLoad(accounts.map((a) => a.client));
    await Bun.sleep(300);
    const headBefore = logHead(service.dataDir);
    const backupDir = join(work, "backup");
    const backup = await admin(service.dataDir, "backup", backupDir);
    const writes = await load.stop();
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(/^backed up .+\n {2}events: \d+, log position \d+\n.*\n {2}blobs: \d+ files, .+\n {2}took [\d.]+ s\n$/);
    const manifest = JSON.parse(readFileSync(join(backupDir, "backup.json"), "utf8")) as BackupManifest;
    // The log was copied while the load went on: it holds writes made after the backup began, not all of them.
    expect(manifest.events.lastPosition).toBeGreaterThan(headBefore);
    expect(manifest.events.lastPosition).toBeLessThan(logHead(service.dataDir));
    expect(writes).toBeGreaterThan(0);

    const dataDir = join(work, "restored");
    const restore = await admin(dataDir, "restore", backupDir);
    // A new DATA_DIR has no ledger of erasures: the restore says erased data may have come back.
    expect(restore.stderr).toStartWith("WARNING: no ledger of erasures was found");
    expect(restore.code).toBe(0);
    expect(readdirSync(dataDir).sort()).toEqual(["blobs", "events.sqlite", "keys", "readmodels.sqlite", "signing-secret"]);
    expect(logHead(dataDir)).toBe(manifest.events.lastPosition);
    // Read models were copied before the log: no projection is ahead of it.
    const readModels = new EmbeddedDocumentStore(join(dataDir, "readmodels.sqlite"));
    try {
      const checkpoints = new Checkpoints(readModels);
      for (const { name } of allProjections) expect(await checkpoints.load(checkpointId(name))).toBeLessThanOrEqual(manifest.events.lastPosition);
    } finally {
      await readModels.close();
    }

    const restored = await startServiceProcess(serviceEnv, dataDir);
    try {
      for (const account of accounts) {
        const client = on(account.client, restored.url);
        const { tasks, balance: was } = before.get(account.client)!;
        const now = await settled(client);
        const shown = (task: TaskView | undefined) => task && { id: task.id, name: task.name, status: task.status, segments: task.segments };
        // Everything the account had before the backup began, as it was, with its transcript.
        for (const task of tasks) expect(shown(now.find((t) => t.id === task.id))).toEqual(shown(task));
        // Besides, only tasks of the load that were in the copied log, each with its (supplied or edited) transcript.
        const loaded = now.filter((t) => !tasks.some((b) => b.id === t.id));
        for (const task of loaded) expect(load.created.get(account.client)).toContain(task.id);
        for (const task of loaded)
          expect({ id: task.id, status: task.status, transcript: task.segments?.length }).toEqual({ id: task.id, status: "finished", transcript: 1 });
        expect(await balance(client)).toEqual(was);
      }
      const audio = await on(accounts[0]!.client, restored.url).call("GET", `/api/tasks/${uploaded.taskId}/audio`);
      expect(audio.status).toBe(200);
      expect(Buffer.from(await audio.arrayBuffer()).equals(tone)).toBe(true);
      // The upload in progress goes on where it was: its parts were backed up.
      const completed = await on(accounts[1]!.client, restored.url).complete(pending.session, "tone.wav", "audio/wav", tone.byteLength);
      expect(completed.status).toBe(201);
      await settled(on(accounts[1]!.client, restored.url));
    } finally {
      await restored.stop();
    }
    // Whatever the restored service appended as it stopped is folded by the CLI's catch-up, not rebuilt.
    expect((await admin(dataDir, "users")).code).toBe(0);
    await expectReadModelsEqualReplay(dataDir);
  }, 180_000);

  test("refused: a non-empty target or DATA_DIR, an incomplete or corrupt backup, the cluster profile; bad usage", async () => {
    const backupDir = join(work, "refusals");
    expect((await admin(service.dataDir, "backup", backupDir)).code).toBe(0);

    const again = await admin(service.dataDir, "backup", backupDir);
    expect(again).toMatchObject({ code: 1, stdout: "" });
    expect(again.stderr).toContain("is not empty");
    const intoLive = await admin(service.dataDir, "restore", backupDir);
    expect(intoLive.code).toBe(1);
    expect(intoLive.stderr).toContain(`DATA_DIR ${service.dataDir} is not empty`);

    const damaged = (name: string, damage: (dir: string) => void) => {
      const dir = join(work, name);
      cpSync(backupDir, dir, { recursive: true });
      damage(dir);
      return dir;
    };
    const flipped = damaged("flipped", (dir) => {
      const file = join(dir, "events.sqlite");
      const bytes = readFileSync(file);
      const middle = bytes.length >> 1;
      bytes[middle] = bytes[middle]! ^ 0xff;
      writeFileSync(file, bytes);
    });
    const unfinished = damaged("unfinished", (dir) => rmSync(join(dir, "backup.json")));
    const blobless = damaged("blobless", (dir) => rmSync(join(dir, "blobs", "transcripts"), { recursive: true }));
    for (const [dir, why] of [
      [flipped, "is corrupt: events.sqlite is not what the backup wrote"],
      [unfinished, "is not a complete backup"],
      [blobless, "is incomplete: blobs/ holds"],
    ] as const) {
      const target = join(work, `restore-of-${dir.split("/").at(-1)}`);
      const result = await admin(target, "restore", dir);
      expect({ code: result.code, refused: result.stderr.includes(why) }).toEqual({ code: 1, refused: true });
      expect(existsSync(target)).toBe(false);
    }

    const cluster = await runCli("admin", ["backup", join(work, "cluster")], { DATA_DIR: service.dataDir, EVENTSTORE_URL: "esdb://127.0.0.1:1?tls=false" });
    expect(cluster.code).toBe(1);
    expect(cluster.stderr).toContain("cannot back up the cluster profile (EVENTSTORE_URL (EventStoreDB) set)");
    const clusterRestore = await runCli("admin", ["restore", backupDir], { DATA_DIR: join(work, "cluster"), MONGODB_URL: "mongodb://127.0.0.1:1" });
    expect(clusterRestore.code).toBe(1);
    expect(clusterRestore.stderr).toContain("cannot restore the cluster profile (MONGODB_URL (MongoDB) set)");
    expect(existsSync(join(work, "cluster"))).toBe(false);

    expect((await admin(service.dataDir, "backup")).code).toBe(2);
    expect((await admin(service.dataDir, "restore", "a", "b")).code).toBe(2);
  }, 60_000);
});
