// What the protected event store (crypto-shredding, src/erasure/protected-event-store.ts) costs, embedded profile:
//   bun bench/erasure-events.bench.ts [tasks] [rounds]        (default 2000 tasks, 5 rounds; 300 and 3 in quick mode)
// Two DATA_DIRs, one written and read through the decorator (with its SQLite key store), one without, measured in
// turns (bench/support/in-turns.ts) so that the machine's drift falls on both alike:
// - task creation: appending a new task's TaskCreated (name, file name, path; a transcript reference), which makes
//   the task's data key and encrypts its fields; the ratio is of the median per-round times (protected ÷ plain);
// - replay: every projection rebuilt from the whole log (each task created, started, finished with a 2 KiB summary and
//   a mind map, renamed), which decrypts every personal field; and the log read alone (readAll in batches of 1,000),
//   the decryption's upper bound, since a replay's read-model writes come on top. Each turn opens its store afresh (no
//   key or decrypted field cached), as `bun run replay` does; a replay decrypts a field once, however many projections
//   read it (src/erasure/decrypted-fields.ts).
// - task creation through the API: POST /api/tasks on the whole service in process, as a client sees it (each task
//   deleted after, since an account has 3 slots); the clear side's service has a store without the decorator.
// Creating a task makes its data key: one write to the key store, which syncs it to disk before the event is appended
// (a key lost in a power cut while its event survived would leave the event unreadable).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEvent } from "../src/core/event.ts";
import type { EventStore } from "../src/core/event-store.ts";
import { SqliteEventStore } from "../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../src/readmodels/embedded.ts";
import { FileBlobStore } from "../src/blobs/filesystem.ts";
import { TranscriptStore } from "../src/tasks/transcripts.ts";
import { protectEvents } from "../src/erasure/protected-event-store.ts";
import { dataKeysFile, SqliteDataKeyStore } from "../src/erasure/sqlite-data-keys.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { allProjections } from "../projections/index.ts";
import { inTurns, medianRatio, type Side } from "./support/in-turns.ts";
import { median } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";
import { startTestApp, type TestApp } from "../test/support/test-app.ts";
import { scriptPace } from "../test/support/limits.ts";
import { observingAppends } from "../src/core/append-observers.ts";
import { namedActor, withUpcasting } from "../src/core/upcasting.ts";
import { taskUpcasters } from "../src/tasks/upcasters.ts";

const tasks = numberArgument(0, 2000, 300);
const rounds = numberArgument(1, 5, 3);
const dirs = { a: mkdtempSync(join(tmpdir(), "scribe-bench-protected-")), b: mkdtempSync(join(tmpdir(), "scribe-bench-plain-")) };
const open = (side: Side): EventStore => {
  const stored = new SqliteEventStore(join(dirs[side], "events.sqlite"));
  return side === "a" ? protectEvents(stored, new SqliteDataKeyStore(join(dirs.a, dataKeysFile)), { closesKeys: true }) : stored;
};
const stores = { a: open("a"), b: open("b") };
const metadata = { correlationId: "bench", causationId: null, userId: 1, system: null };
const event = (type: string, data: Record<string, unknown>): NewEvent => ({ id: crypto.randomUUID(), type, data, metadata });
const sentence = "The patient described the symptoms that began after the second visit in early October. ";

function created(taskId: number): NewEvent {
  return event("TaskCreated", {
    taskId,
    userId: 1,
    name: `Interview with Dr. Ana Müller, session ${taskId}`,
    file: `interview-ana-muller-${taskId}.m4a`,
    path: `uploads/1/${taskId.toString(16).padStart(32, "0")}/interview-ana-muller-${taskId}.m4a`,
    disk: "objstore",
    size: 1_000_000,
    duration: 600,
    cost: 600,
    url: null,
    speakerDiarization: false,
    transcript: null,
    createdAt: new Date().toISOString(),
  });
}

function lifecycle(taskId: number): NewEvent[] {
  const ids = { userId: 1, taskId };
  return [
    event("TranscriptionStarted", ids),
    event("TaskFinished", {
      ...ids,
      attempt: 1,
      name: `Interview with Dr. Ana Müller, session ${taskId}`,
      transcript: null,
      duration: 600,
      cost: 600,
      summary: sentence.repeat(24).slice(0, 2048),
      mindmap: `# Interview\n${Array.from({ length: 20 }, (_, i) => `- point ${i}: ${sentence.slice(0, 40)}`).join("\n")}`,
    }),
    event("TaskRenamed", { ...ids, name: `Interview ${taskId}, renamed` }),
  ];
}

/** Creates tasks `from`..`to` on one side; the milliseconds it took. */
async function createTasks(side: Side, from: number, to: number): Promise<number> {
  const started = performance.now();
  for (let taskId = from; taskId < to; taskId++) await stores[side].append(`task-${taskId}`, [created(taskId)], { expectedRevision: "no_stream" });
  return performance.now() - started;
}

try {
  const perRound = Math.max(1, Math.floor(tasks / rounds));
  const creation = await inTurns(rounds, async (side, round) => createTasks(side, 1 + round * perRound, 1 + (round + 1) * perRound));
  const created = rounds * perRound;
  for (const side of ["a", "b"] as const)
    for (let taskId = 1; taskId <= created; taskId++) await stores[side].append(`task-${taskId}`, lifecycle(taskId), { expectedRevision: 0 });
  console.log(`${created} tasks, ${created * 4} events on each side`);
  const creationMs = (side: Side) => median(creation.map((pair) => pair[side])) / perRound;
  figure("task creation (TaskCreated appended), with encryption", creationMs("a") * 1000, "µs/task");
  figure("task creation (TaskCreated appended), without", creationMs("b") * 1000, "µs/task");
  figure("task creation: encrypted ÷ clear", medianRatio(creation), "x");

  // Each turn on a store opened afresh, as `bun run replay` opens it: no key or decrypted field cached yet.
  const readLog = await inTurns(rounds, async (side) => {
    const store = open(side);
    const started = performance.now();
    for (let after = 0; ; ) {
      const batch = await store.readAll({ after, limit: 1000 });
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!.position;
    }
    const elapsed = performance.now() - started;
    await store.close();
    return elapsed;
  });
  figure("the whole log read: decrypted ÷ clear", medianRatio(readLog), "x");

  const blobs = new FileBlobStore({ root: join(dirs.b, "blobs"), publicUrl: "http://localhost", secret: "bench" });
  const replay = await inTurns(rounds, async (side, round) => {
    const db = new EmbeddedDocumentStore(join(dirs[side], `replay-${round}.sqlite`));
    const store = open(side);
    const started = performance.now();
    await new ProjectionRunner(store, db, allProjections, () => true, { transcripts: new TranscriptStore(blobs) }).rebuild();
    const elapsed = performance.now() - started;
    await store.close();
    await db.close();
    return elapsed;
  });
  figure("replay (every projection rebuilt), with decryption", median(replay.map((pair) => pair.a)), "ms");
  figure("replay (every projection rebuilt), without", median(replay.map((pair) => pair.b)), "ms");
  figure("replay: decrypted ÷ clear", medianRatio(replay), "x");
  await blobs.close();
  await createThroughApi();
} finally {
  await stores.a.close();
  await stores.b.close();
  rmSync(dirs.a, { recursive: true, force: true });
  rmSync(dirs.b, { recursive: true, force: true });
}

/** POST /api/tasks timed on two in-process services, with the protected store and without, in turns. */
async function createThroughApi(): Promise<void> {
  const env = { ...scriptPace, TRANSCRIPTION_WORKER: "off", LOG_LEVEL: "error" };
  const clearDir = mkdtempSync(join(tmpdir(), "scribe-bench-clear-api-"));
  const apps = {
    a: await startTestApp(env),
    b: await startTestApp(env, {
      adapters: (opened) => ({
        ...opened,
        eventStore: observingAppends(
          withUpcasting(new SqliteEventStore(join(clearDir, "events.sqlite")), [namedActor, ...taskUpcasters]),
          opened.appendObservers,
        ),
      }),
    }),
  };
  try {
    const users = { a: await apps.a.register(), b: await apps.b.register() };
    const creates = Math.max(20, Math.floor(tasks / 20));
    const timed = async (app: TestApp, token: string): Promise<number> => {
      const started = performance.now();
      const response = await app.request("POST", "/api/tasks", {
        token,
        json: { disk: "objstore", name: "Interview with Dr. Ana Müller", path: "uploads/a.mp3" },
      });
      const elapsed = performance.now() - started;
      if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
      await app.request("DELETE", `/api/tasks/${((await response.json()) as { id: number }).id}`, { token });
      await Bun.sleep(30); // the deletion's workers, out of the next create's time
      return elapsed;
    };
    const pairs = await inTurns(rounds, async (side) => {
      const times: number[] = [];
      for (let i = 0; i < creates; i++) times.push(await timed(apps[side], users[side].token));
      return median(times);
    });
    figure("POST /api/tasks p50, with encryption", median(pairs.map((pair) => pair.a)), "ms");
    figure("POST /api/tasks p50, without", median(pairs.map((pair) => pair.b)), "ms");
    figure("POST /api/tasks: encrypted ÷ clear", medianRatio(pairs), "x");
  } finally {
    await apps.a.close();
    await apps.b.close();
    rmSync(clearDir, { recursive: true, force: true });
  }
}
