/**
 * The transcription pipeline in the real service process: a worker killed with SIGKILL in the middle
 * of a transcription loses nothing (the task finishes once, with one charge), in the embedded profile
 * (the relay publishes unsettled events again after the restart) and with NATS JetStream (the message
 * is delivered again once its ack wait passes without a heartbeat).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { bunBinary, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";
import { joinedClips, joinedMp3, spoken } from "../support/media-fixtures.ts";
import { until } from "../support/eventually.ts";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";
import { userStream } from "../../src/accounts/events.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { manyLogins, manyRequestsPerToken } from "../support/limits.ts";
import { storedEventsOf } from "../support/stored-events.ts";

const env = { ...manyRequestsPerToken, ...manyLogins, CHUNK_SECONDS: "10" };
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** About 30 s of speech: long enough to be caught scribing, short enough for the suite. */
async function recording(): Promise<Uint8Array> {
  const clips = await joinedClips(["1089-134686-0000", "1089-134691-0001", "1089-134686-0000", "1089-134691-0001"], 1);
  if (clips) return clips.bytes;
  const parts = await Promise.all(
    ["The committee met on Monday to discuss the new park.", "Everyone agreed the playground needs more shade.", "The budget will be voted on next week."].map(
      (t) => spoken(t),
    ),
  );
  return (await joinedMp3([...parts, ...parts, ...parts], 1)).bytes;
}

async function api(url: string, method: string, path: string, token?: string, body?: unknown): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function register(url: string): Promise<{ token: string; id: number }> {
  const email = `kill-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const response = await api(url, "POST", "/api/register", undefined, { name: "Kill", email, password: "password123", password_confirmation: "password123" });
  const body = (await response.json()) as { token: string; user: { id: number } };
  return { token: body.token, id: body.user.id };
}

async function statusOf(url: string, token: string, id: number): Promise<Record<string, unknown>> {
  return (await (await api(url, "GET", `/api/tasks/${id}`, token)).json()) as Record<string, unknown>;
}

async function waitFor(url: string, token: string, id: number, status: string, timeoutMs: number, pollMs = 50): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await statusOf(url, token, id);
    if (task.status === status) return task;
    if (Date.now() > deadline) throw new Error(`task ${id} is ${String(task.status)} (${String(task.failure_reason)}), not ${status}`);
    await Bun.sleep(pollMs);
  }
}

/** The account's used seconds once the charge that follows TaskFinished (through the bus) has reached its balance. */
const chargedSeconds = (url: string, token: string) =>
  until("the charge to reach the balance", async () => {
    const { balance } = (await (await api(url, "GET", "/api/user", token)).json()) as { balance: { used_seconds: number } };
    return balance.used_seconds; // 0 until charged
  });

/** Reads the log of a stopped service's DATA_DIR. */
async function storedEvents(dataDir: string, stream: string) {
  const store = storedEventsOf(dataDir);
  try {
    return await store.readStream(stream);
  } finally {
    await store.close();
  }
}

async function putMedia(dataDir: string, userId: number, bytes: Uint8Array): Promise<string> {
  const key = `uploads/${userId}/${crypto.randomUUID().replaceAll("-", "")}/recording.flac`;
  const blobs = new FileBlobStore({ root: join(dataDir, "blobs"), publicUrl: "http://unused", secret: "unused" });
  await blobs.put(key, bytes, { contentType: "audio/flac" });
  return key;
}

/** Checks the task finished once, with one set of segments and one charge, in the stored log. */
async function expectFinishedOnce(dataDir: string, userId: number, taskId: number, cost: number) {
  const events = await storedEvents(dataDir, taskStream(taskId));
  expect(events.filter((e) => e.type === "TaskFinished")).toHaveLength(1);
  expect(events.filter((e) => e.type === "TaskFailed")).toHaveLength(0);
  const charges = (await storedEvents(dataDir, userStream(userId)))
    .filter((e) => e.type === "SecondsCharged")
    .map((e) => e.data as { taskId: number; seconds: number });
  expect(charges).toEqual([expect.objectContaining({ taskId, seconds: cost })]);
}

describe("a worker killed with SIGKILL in the middle of a transcription", () => {
  test("embedded profile: after a restart on the same DATA_DIR the task finishes once, with one charge", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "scribe-kill-"));
    dirs.push(dataDir);
    let service: RunningService = await startServiceProcess(env, dataDir);
    const user = await register(service.url);
    const path = await putMedia(dataDir, user.id, await recording());
    const created = (await (await api(service.url, "POST", "/api/tasks", user.token, { disk: "objstore", name: "Killed", path })).json()) as { id: number };
    await waitFor(service.url, user.token, created.id, "scribing", 20_000, 10);
    await Bun.sleep(700); // recognition under way
    service.process.kill("SIGKILL");
    await service.process.exited;
    expect((await storedEvents(dataDir, taskStream(created.id))).map((e) => e.type)).not.toContain("TaskFinished");

    service = await startServiceProcess(env, dataDir);
    try {
      const task = await waitFor(service.url, user.token, created.id, "finished", 60_000);
      expect((task.segments as unknown[]).length).toBeGreaterThan(1);
      expect(await chargedSeconds(service.url, user.token)).toBe(task.cost as number);
    } finally {
      await service.stop();
    }
    const task = (await storedEvents(dataDir, taskStream(created.id))).find((e) => e.type === "TaskFinished")!.data as { cost: number };
    await expectFinishedOnce(dataDir, user.id, created.id, task.cost);
  }, 120_000);

  test("nothing outlives a killed worker: its recognisers die with it, and a restart sweeps its temporary media", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "scribe-kill-leftovers-"));
    const tempDir = mkdtempSync(join(tmpdir(), "scribe-kill-tmp-"));
    dirs.push(dataDir, tempDir);
    const leftoverEnv = { ...env, TRANSCRIPTION_TMPDIR: tempDir };
    let service: RunningService = await startServiceProcess(leftoverEnv, dataDir);
    const user = await register(service.url);
    const path = await putMedia(dataDir, user.id, await recording());
    const created = (await (await api(service.url, "POST", "/api/tasks", user.token, { disk: "objstore", name: "Leftovers", path })).json()) as { id: number };
    await waitFor(service.url, user.token, created.id, "scribing", 20_000, 10);
    const recognising = () => Bun.spawnSync(["pgrep", "-f", tempDir]).stdout.toString().trim().split("\n").filter(Boolean);
    const deadline = Date.now() + 20_000;
    while (recognising().length === 0 && Date.now() < deadline) await Bun.sleep(20);
    expect(recognising().length).toBeGreaterThan(0);
    service.process.kill("SIGKILL");
    await service.process.exited;
    await Bun.sleep(500);
    expect(recognising()).toEqual([]);
    expect(readdirSync(tempDir).filter((n) => n.startsWith("scribe-task-"))).toHaveLength(1);

    service = await startServiceProcess(leftoverEnv, dataDir);
    try {
      const swept = Date.now() + 5_000;
      while (
        readdirSync(tempDir).some((n) => n.startsWith(`scribe-task-${service.process.pid}-`) === false && n.startsWith("scribe-task-")) &&
        Date.now() < swept
      )
        await Bun.sleep(50);
      expect(readdirSync(tempDir).filter((n) => n.startsWith("scribe-task-") && !n.startsWith(`scribe-task-${service.process.pid}-`))).toEqual([]);
      await waitFor(service.url, user.token, created.id, "finished", 60_000);
    } finally {
      await service.stop();
    }
  }, 120_000);

  describe("with NATS JetStream", () => {
    let nats: NatsServer;
    afterAll(async () => {
      await nats?.stop();
    });

    /** A process with ROLES=workers (no HTTP to wait for): ready once it logs its roles. */
    async function startWorkers(dataDir: string, natsUrl: string): Promise<{ process: Subprocess; output(): string }> {
      let output = "";
      const child = Bun.spawn([bunBinary, "src/main.ts"], {
        cwd: join(import.meta.dir, "../.."),
        env: { ...process.env, ...env, DATA_DIR: dataDir, ROLES: "workers", NATS_URL: natsUrl, TRANSCRIPTION_ACK_WAIT_SECONDS: "2", PORT: "0" },
        stdout: "pipe",
        stderr: "pipe",
      });
      for (const stream of [child.stdout, child.stderr])
        void (async () => {
          for await (const chunk of stream) output += new TextDecoder().decode(chunk);
        })();
      const deadline = Date.now() + 20_000;
      while (!output.includes("scribe: roles workers")) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`workers did not start:\n${output}`);
        await Bun.sleep(50);
      }
      return { process: child, output: () => output };
    }

    test("the API and the workers as separate processes; the killed worker's message goes to the next worker, which finishes the task once", async () => {
      nats = await startNatsServer();
      const dataDir = mkdtempSync(join(tmpdir(), "scribe-kill-nats-"));
      dirs.push(dataDir);
      const apiProcess = await startServiceProcess({ ...env, ROLES: "api,projections", NATS_URL: nats.url }, dataDir);
      let workers = await startWorkers(dataDir, nats.url);
      try {
        expect(workers.output()).toContain("bus: NATS JetStream");
        const user = await register(apiProcess.url);
        const path = await putMedia(dataDir, user.id, await recording());
        const created = (await (await api(apiProcess.url, "POST", "/api/tasks", user.token, { disk: "objstore", name: "Over NATS", path })).json()) as {
          id: number;
        };
        await waitFor(apiProcess.url, user.token, created.id, "scribing", 20_000, 10);
        await Bun.sleep(700);
        workers.process.kill("SIGKILL");
        await workers.process.exited;
        expect((await storedEvents(dataDir, taskStream(created.id))).map((e) => e.type)).not.toContain("TaskFinished");
        workers = await startWorkers(dataDir, nats.url);
        const task = await waitFor(apiProcess.url, user.token, created.id, "finished", 60_000);
        expect(await chargedSeconds(apiProcess.url, user.token)).toBe(task.cost as number);
        await expectFinishedOnce(dataDir, user.id, created.id, task.cost as number);
      } finally {
        workers.process.kill("SIGTERM");
        await workers.process.exited;
        await apiProcess.stop();
      }
    }, 120_000);
  });
});
