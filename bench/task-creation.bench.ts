// Task creation as one user's history grows, embedded profile:
//   bun bench/task-creation.bench.ts [history sizes, comma-separated] [creates per size] [throughput seconds]
// Defaults: 100,1000,10000,100000 tasks; 200 creates; 10 s (quick mode: 100,2000 tasks; 50 creates; 2 s).
// For each size: a fresh DATA_DIR, the account registered through the API, then its history seeded straight
// into the event store as the service writes it (an id reserved, the slot taken and released on user-<id>,
// TaskCreated and TaskFinished on task-<id>; no transcript blobs, which creation never reads), the read models rebuilt, and the real service
// started. Then `creates` sequential POST /api/tasks with segments (p50, p99 of the 201s; a 429 waits 2 ms
// and is not timed) and, with no history and at 10,000 tasks (or the largest history under it), tasks created
// per second in a loop of 3 clients for `seconds`.
// Goals (issue 12): p50 at 100,000 (the largest history) <= 1.5x p50 at 100; throughput at 10,000 within 20% of none.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { loadConfig } from "../src/config.ts";
import { openDocumentStore, openEventStore } from "../src/adapters.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { allProjections } from "../projections/index.ts";
import { Checkpoints } from "../projections/checkpoints.ts";
import { taskStream, type TaskEvent } from "../src/tasks/events.ts";
import { userStream } from "../src/accounts/events.ts";
import type { AdmissionEvent } from "../src/tasks/admission.ts";
import type { NewEvent } from "../src/core/event.ts";
import { startServiceProcess, type RunningService } from "../test/support/service-process.ts";
import { percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { argument, numberArgument } from "./support/quick.ts";

const sizes = argument(0, "100,1000,10000,100000", "100,2000").split(",").map(Number);
const creates = numberArgument(1, 200, 50);
const throughputSeconds = numberArgument(2, 10, 2);
const env = { RATE_LIMIT_PER_MINUTE: "1000000000", LOGIN_ATTEMPTS_PER_MINUTE: "1000000000" };
const segments = [
  { start: 0, end: 2500, text: "Good morning and welcome to the weekly meeting." },
  { start: 2500, end: 5000, text: "Let us start with the numbers from last week." },
];

async function register(dataDir: string): Promise<{ token: string; userId: number }> {
  const service = await startServiceProcess(env, dataDir);
  try {
    const response = await fetch(`${service.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Bench", email: "bench@example.com", password: "password123", password_confirmation: "password123" }),
    });
    const body = (await response.json()) as { token: string; user: { id: number } };
    return { token: body.token, userId: body.user.id };
  } finally {
    await service.stop();
  }
}

/** Writes `count` finished tasks of `userId` the way the service would have, and rebuilds the read models. */
async function seedHistory(dataDir: string, userId: number, count: number): Promise<number> {
  const started = performance.now();
  const config = loadConfig({ ...env, DATA_DIR: dataDir });
  const store = await openEventStore(config);
  const db = await openDocumentStore(config);
  const metadata = { correlationId: "bench-seed", causationId: null, userId: userId, system: null };
  const event = (e: { type: string; data: unknown }): NewEvent => ({ id: crypto.randomUUID(), type: e.type, data: e.data, metadata });
  const batch = 1000;
  for (let from = 1; from <= count; from += batch) {
    const ids: number[] = [];
    for (let taskId = from; taskId < Math.min(from + batch, count + 1); taskId++) ids.push(taskId);
    await store.append(
      "sequence-task",
      ids.map(() => event({ type: "IdReserved", data: {} })),
      { expectedRevision: "any" },
    );
    const slots: AdmissionEvent[] = ids.flatMap((taskId) => [
      { type: "TaskAdmitted" as const, data: { taskId, attempt: 1, admittedAt: new Date().toISOString() } },
      { type: "TaskSlotReleased" as const, data: { taskId, attempt: 1 } },
    ]);
    await store.append(userStream(userId), slots.map(event), { expectedRevision: "any" });
    await Promise.all(
      ids.map((taskId) => {
        const name = `Weekly meeting ${taskId}`;
        const history: TaskEvent[] = [
          {
            type: "TaskCreated",
            data: {
              taskId,
              userId,
              name,
              file: null,
              path: "meeting.mp3",
              disk: "objstore",
              size: null,
              duration: 5,
              cost: null,
              url: null,
              speakerDiarization: false,
              transcript: null,
              createdAt: new Date().toISOString(),
            },
          },
          { type: "TaskFinished", data: { userId, taskId, attempt: 1, name, transcript: null, duration: 5, cost: null, summary: null, mindmap: null } },
        ];
        return store.append(taskStream(taskId), history.map(event), { expectedRevision: "no_stream" });
      }),
    );
  }
  await new ProjectionRunner(store, db, allProjections).rebuild();
  let end = 0;
  for (let page = await store.readAll({ after: 0, limit: 10_000 }); page.length > 0; page = await store.readAll({ after: end, limit: 10_000 }))
    end = page.at(-1)!.position;
  await new Checkpoints(db).save("relay", end);
  await db.close();
  await store.close();
  return (performance.now() - started) / 1000;
}

async function createOne(service: RunningService, token: string, index: number): Promise<number> {
  for (;;) {
    const t0 = performance.now();
    const response = await fetch(`${service.url}/api/tasks`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ disk: "objstore", name: `Bench ${index}`, path: "meeting.mp3", duration: 5, segments }),
    });
    const elapsed = performance.now() - t0;
    await response.arrayBuffer();
    if (response.status === 201) return elapsed;
    // The service logs why it answered 500; show its last lines rather than only the status.
    if (response.status !== 429) throw new Error(`POST /api/tasks: ${response.status}\n${service.output().split("\n").slice(-20).join("\n")}`);
    await Bun.sleep(2);
  }
}

async function throughput(service: RunningService, token: string): Promise<number> {
  const deadline = performance.now() + throughputSeconds * 1000;
  let made = 0;
  await Promise.all(
    [0, 1, 2].map(async (client) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await createOne(service, token, 1_000_000 * (client + 1) + i);
        made++;
      }
    }),
  );
  return made / throughputSeconds;
}

const results: { size: number; p50: number; p99: number; perSecond: number | null }[] = [];
const throughputAt = Math.max(0, ...sizes.filter((size) => size <= 10_000));
const withThroughput = new Set([0, throughputAt]);
for (const size of [0, ...sizes]) {
  const dataDir = mkdtempSync(`${tmpdir()}/scribe-creation-bench-`);
  try {
    const { token, userId } = await register(dataDir);
    const seedSeconds = size > 0 ? await seedHistory(dataDir, userId, size) : 0;
    const service = await startServiceProcess(env, dataDir);
    try {
      const samples: number[] = [];
      for (let i = 0; i < 20; i++) await createOne(service, token, i); // warm-up
      for (let i = 0; i < creates; i++) samples.push(await createOne(service, token, 100 + i));
      const perSecond = withThroughput.has(size) ? await throughput(service, token) : null;
      const row = { size, p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond };
      results.push(row);
      console.log(
        `history ${String(size).padStart(7)} tasks (seeded in ${seedSeconds.toFixed(1)} s): POST /api/tasks p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms` +
          (perSecond !== null ? `; ${perSecond.toFixed(1)} tasks/s sustained (3 clients)` : ""),
      );
    } finally {
      await service.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const at = (size: number) => results.find((r) => r.size === size);
const base = at(100);
const largest = Math.max(...sizes);
for (const { size, p50 } of results) figure(`POST /api/tasks p50, history of ${size}`, p50, "ms");
for (const size of sizes)
  if (base && at(size) && size !== 100)
    figure(`p50 at ${size} ÷ p50 at 100`, at(size)!.p50 / base.p50, "×", size === largest ? { op: "<=", value: 1.5 } : null);
if (at(0)?.perSecond) figure("sustained creation, no history", at(0)!.perSecond!, "tasks/s");
if (at(0)?.perSecond && throughputAt > 0 && at(throughputAt)?.perSecond)
  figure(`sustained creation at ${throughputAt} ÷ none`, (at(throughputAt)!.perSecond! / at(0)!.perSecond!) * 100, "%", { op: ">=", value: 80 });
