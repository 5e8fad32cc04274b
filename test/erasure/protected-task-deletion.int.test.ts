import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { until, workersCaughtUp } from "../support/eventually.ts";
import type { User } from "../support/tasks.ts";
import { checkpointAll, filesHolding, finishedTaskWithMedia } from "../support/plaintext-scan.ts";
import { bunBinary } from "../support/service-process.ts";
import { bytes, complete, completeBody, sign, uploadParts } from "../support/uploads.ts";
import { taskStream } from "../../src/tasks/events.ts";

/**
 * Deleting a task deletes its content (issue 32, item 1): after DELETE /api/tasks/{id} and its workers, the task's
 * name, file name and words are in no file under DATA_DIR (write-ahead logs checkpointed), the analyst export with
 * secrets prints them "[erased]", and a replay brings them back nowhere. Another account's task is untouched.
 */

let app: TestApp;
let stopped = false;
const unique = (what: string) => `${what}${crypto.randomUUID().replaceAll("-", "")}`;
const secrets = { name: unique("Privatename"), file: unique("privatefile"), words: unique("privatewords"), upload: unique("uploadedfile") };
const kept = { name: unique("Keptname"), words: unique("keptwords") };

beforeAll(async () => {
  // Nothing here needs recognising: transcripts are supplied, media is only stored.
  // A webhook endpoint on loopback that refuses connections: its messages about the task stay in the log, pending.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1" });
});
afterAll(async () => {
  if (!stopped) await app.close();
  else rmSync(app.config.dataDir, { recursive: true, force: true });
});

/** A finished task with media and a supplied transcript, once its pdf and docx are made. */
async function finishedTask(user: User, name: string, file: string, words: string): Promise<number> {
  const id = await finishedTaskWithMedia(app, user, name, file, words);
  const exports = async () => (await app.adapters.eventStore.readStream(taskStream(id))).filter((e) => e.type === "ExportGenerated").length >= 2;
  await until(`task ${id}'s pdf and docx`, exports, 20_000);
  return id;
}

/** A task made by an upload (sign, parts, complete) of a file named `file`: pending, since nothing recognises it here. */
async function uploadedTask(user: User, file: string): Promise<number> {
  const data = bytes(1000);
  const session = await sign(app, user, { file: `${file}.mp3`, content_type: "audio/mpeg", size: data.byteLength });
  await uploadParts(app, user, session, data);
  const completed = await complete(app, user, completeBody(session, `${file}.mp3`, "audio/mpeg", data.byteLength, { name: file }));
  expect(completed.status).toBe(201);
  return ((await completed.json()) as { task: { id: number } }).task.id;
}

async function cli(script: string, args: string[]): Promise<string> {
  const child = Bun.spawn([bunBinary, script, ...args], {
    cwd: join(import.meta.dir, "..", ".."),
    env: { ...process.env, DATA_DIR: app.config.dataDir, LOG_LEVEL: "warn" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${script} exited ${code}: ${err}`);
  return out;
}

test("a deleted task's name, file name and words are in no file under DATA_DIR, no export and no replay", async () => {
  const user = await app.register();
  const other = await app.register();
  const endpoint = await app.request("POST", "/api/webhooks", { token: user.token, json: { url: "http://127.0.0.1:9/hook", events: ["task.finished"] } });
  expect(endpoint.status).toBe(201);
  const id = await finishedTask(user, secrets.name, secrets.file, secrets.words);
  const otherId = await finishedTask(other, kept.name, unique("keptfile"), kept.words);

  const uploaded = await uploadedTask(user, secrets.upload);

  for (const task of [id, uploaded]) {
    expect((await app.request("DELETE", `/api/tasks/${task}`, { token: user.token })).status).toBe(200);
    await until(`task ${task}'s key destroyed`, async () => (await app.adapters.dataKeys.find(`task-${task}`)) === "erased");
  }
  await workersCaughtUp(app);
  await app.service.stop();
  await app.adapters.close();
  stopped = true;
  const dataDir = app.config.dataDir;
  checkpointAll(dataDir);
  for (const text of Object.values(secrets)) expect({ text, files: filesHolding(dataDir, text) }).toEqual({ text, files: [] });
  // The scan sees what is there: the other account's task is in the files still, in the clear where it is stored so.
  expect(filesHolding(dataDir, kept.words).length).toBeGreaterThan(0);

  const exported = await cli("src/cli/events.ts", ["--include-secrets"]);
  for (const text of Object.values(secrets)) expect(exported).not.toContain(text);
  expect(exported).toContain('"type":"WebhookMessageScheduled"');
  const created = exported
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { streamName: string; type: string; data: Record<string, unknown>; erased?: string[] })
    .find((event) => event.streamName === taskStream(id) && event.type === "TaskCreated");
  // Its media's name is in its path; its words in a transcript blob, now deleted. The facts stay.
  expect(created?.data).toMatchObject({ name: "[erased]", path: "[erased]", disk: "objstore", taskId: id });
  expect(created?.erased).toEqual(["name", "path"]);
  expect(exported).toContain(kept.name);

  await cli("src/cli/replay.ts", []);
  checkpointAll(dataDir);
  for (const text of Object.values(secrets)) expect({ text, files: filesHolding(dataDir, text) }).toEqual({ text, files: [] });
  // The replay rebuilt the read models: the other account's task is in them again.
  expect(filesHolding(dataDir, kept.name)).toContain("readmodels.sqlite");
  expect(otherId).toBeGreaterThan(0);
}, 60_000);
