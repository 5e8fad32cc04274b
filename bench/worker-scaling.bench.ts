// Tasks finished per minute with one worker process and with two, and the projection lag meanwhile:
//   bun bench/worker-scaling.bench.ts [tasks]        (default 24; 3 in quick mode)
// Cluster shape on one machine: nats-server, one process with ROLES=api,projections, and 1 then 2
// processes with ROLES=workers, all on one DATA_DIR. `tasks` short real clips (the LibriSpeech clips of
// ../shared/testdata, espeak-ng speech without them) are created at once across eight accounts (three in
// flight each at most, so creates that get 429 are retried), and timed until the last one is finished.
// Projection lag is sampled every 50 ms: the age of the oldest event the read models have not folded
// yet (0 when they are current); its p99 is printed.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { bunBinary, startServiceProcess } from "../test/support/service-process.ts";
import { startNatsServer } from "../test/support/nats-server.ts";
import { FileBlobStore } from "../src/blobs/filesystem.ts";
import { SqliteEventStore } from "../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../src/readmodels/embedded.ts";
import { Checkpoints } from "../projections/checkpoints.ts";
import { allProjections } from "../projections/index.ts";
import { percentile } from "./support/stats.ts";
import { librispeechDir } from "./support/long-recording.ts";
import { ffmpeg } from "./support/transcription.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const taskCount = numberArgument(0, 24, 3);
const nats = await startNatsServer();

async function clips(work: string): Promise<Uint8Array[]> {
  const flacs = existsSync(librispeechDir)
    ? readdirSync(librispeechDir)
        .filter((f) => f.endsWith(".flac"))
        .sort()
        .map((f) => join(librispeechDir, f))
    : [];
  if (flacs.length > 0) return flacs.map((f) => readFileSync(f));
  const wav = join(work, "speech.wav");
  await Bun.spawn(["espeak-ng", "-w", wav, "The committee met on Monday to discuss the new park and the budget for next year."]).exited;
  const mp3 = join(work, "speech.mp3");
  await ffmpeg(["-i", wav, mp3]);
  return [readFileSync(mp3)];
}

async function startWorkers(dataDir: string, env: Record<string, string>): Promise<Subprocess> {
  let output = "";
  const child = Bun.spawn([bunBinary, "src/main.ts"], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, ...env, DATA_DIR: dataDir, ROLES: "workers", PORT: "0" },
    stdout: "pipe",
    stderr: "pipe",
  });
  for (const stream of [child.stdout, child.stderr])
    void (async () => {
      for await (const chunk of stream) output += new TextDecoder().decode(chunk);
    })();
  while (!output.includes("scribe: roles workers")) {
    if (child.exitCode !== null) throw new Error(output);
    await Bun.sleep(50);
  }
  return child;
}

async function run(workerProcesses: number, media: Uint8Array[]): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-worker-scaling-"));
  const env = {
    RATE_LIMIT_PER_MINUTE: "100000",
    LOGIN_ATTEMPTS_PER_MINUTE: "100000",
    REGISTRATIONS_PER_MINUTE: "100000",
    NATS_URL: nats.url,
    SIGNING_SECRET: "bench",
    LEASE_TTL_SECONDS: "3",
  };
  const api = await startServiceProcess({ ...env, ROLES: "api,projections" }, dataDir);
  const workers = await Promise.all(Array.from({ length: workerProcesses }, () => startWorkers(dataDir, env)));
  const blobs = new FileBlobStore({ root: join(dataDir, "blobs"), publicUrl: "http://unused", secret: "unused" });
  const store = new SqliteEventStore(join(dataDir, "events.sqlite"));
  const db = new EmbeddedDocumentStore(join(dataDir, "readmodels.sqlite"));
  const checkpoints = new Checkpoints(db);
  const lags: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const oldest = Math.min(...(await Promise.all(allProjections.map((p) => checkpoints.load(`projection:${p.name}`)))));
      const [pending] = await store.readAll({ after: oldest, limit: 1 });
      lags.push(pending ? Date.now() - Date.parse(pending.time) : 0);
      await Bun.sleep(50);
    }
  })();
  try {
    const call = (method: string, path: string, token?: string, body?: unknown) =>
      fetch(`${api.url}${path}`, {
        method,
        headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const users = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => {
        const response = await call("POST", "/api/register", undefined, {
          name: `U${i}`,
          email: `u${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
          password: "password123",
          password_confirmation: "password123",
        });
        const body = (await response.json()) as { token: string; user: { id: number } };
        return { token: body.token, id: body.user.id };
      }),
    );
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: taskCount }, async (_, i) => {
        const user = users[i % users.length]!;
        const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/clip${i}.flac`;
        await blobs.put(path, media[i % media.length]!, { contentType: "audio/flac" });
        for (;;) {
          const response = await call("POST", "/api/tasks", user.token, { disk: "objstore", name: `Clip ${i}`, path });
          if (response.status === 201) return { user, id: ((await response.json()) as { id: number }).id };
          if (response.status !== 429) throw new Error(`create: ${response.status} ${await response.text()}`);
          await Bun.sleep(100);
        }
      }),
    );
    for (const { user, id } of ids) {
      for (;;) {
        const task = (await (await call("GET", `/api/tasks/${id}`, user.token)).json()) as { status: string; failure_reason: string | null };
        if (task.status === "finished") break;
        if (task.status === "failed") throw new Error(`task ${id} failed: ${task.failure_reason}`);
        await Bun.sleep(100);
      }
    }
    const minutes = (performance.now() - started) / 60_000;
    sampling = false;
    await sampler;
    const processes = `${workerProcesses} worker process${workerProcesses > 1 ? "es" : ""}`;
    console.log(
      `${processes}: ${taskCount} tasks in ${(minutes * 60).toFixed(1)} s = ${(taskCount / minutes).toFixed(1)} tasks/min; projection lag p50 ${percentile(lags, 50)} ms, p99 ${percentile(lags, 99)} ms, max ${Math.max(...lags)} ms (${lags.length} samples)`,
    );
    figure(`tasks finished, ${processes}`, taskCount / minutes, "tasks/min");
    figure(`projection lag p99, ${processes}`, percentile(lags, 99), "ms");
  } finally {
    sampling = false;
    for (const worker of workers) worker.kill("SIGTERM");
    await Promise.all(workers.map((w) => w.exited));
    await api.stop();
    await db.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const work = mkdtempSync(join(tmpdir(), "scribe-worker-scaling-media-"));
try {
  const media = await clips(work);
  await run(1, media);
  await run(2, media);
} finally {
  await nats.stop();
  rmSync(work, { recursive: true, force: true });
}
