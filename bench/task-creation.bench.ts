// Task creation as one user's history grows, embedded profile:
//   bun bench/task-creation.bench.ts [history sizes, comma-separated] [creates per size] [throughput seconds]
// Defaults: 100,1000,10000,100000 tasks; 200 creates; 10 s (quick mode: 100,2000 tasks; 50 creates; 3 s).
// For each size, and for none: a fresh DATA_DIR, the account registered through the API, then its history seeded
// straight into the event store as the service writes it (an id reserved, the slot taken and released on user-<id>,
// TaskCreated and TaskFinished on task-<id>; no transcript blobs, which creation never reads) and the read models
// rebuilt. Then the real service is started on every DATA_DIR at once, and each ratio's sides are measured in turns,
// so that a loaded machine (whose speed drifts by tens of percent over a minute) slows them alike:
// - `creates` sequential POST /api/tasks with segments per size, in turns one request at a time to each size,
//   forwards then backwards (a 429 waits 2 ms and is not timed): p50 and p99 of each size's 201s, and the ratio of
//   the p50s, whose samples were taken side by side;
// - tasks created per second by a loop of 3 clients with no history and at 10,000 tasks (or the largest history
//   under it), in rounds of slices (that size then none; none then that size; ...; 5 rounds, 3 in quick mode),
//   `seconds` per side in all: the ratio is the median of the rounds'.
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
import { median, percentile } from "./support/stats.ts";
import { inTurns, medianRatio } from "./support/in-turns.ts";
import { figure } from "./support/figures.ts";
import { argument, numberArgument, quick } from "./support/quick.ts";

const sizes = argument(0, "100,1000,10000,100000", "100,2000").split(",").map(Number);
const creates = numberArgument(1, 200, 50);
const throughputSeconds = numberArgument(2, 10, 3);
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

/** Tasks per second that 3 clients create in `seconds` (until the last one's answer). */
async function throughput(service: RunningService, token: string, seconds: number): Promise<number> {
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let made = 0;
  await Promise.all(
    [0, 1, 2].map(async (client) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await createOne(service, token, 1_000_000 * (client + 1) + i);
        made++;
      }
    }),
  );
  return made / ((performance.now() - started) / 1000);
}

/** A history size's account and its service, started with the others once every history is seeded. */
type Subject = { size: number; dataDir: string; token: string; service: RunningService | null; samples: number[] };

const throughputAt = Math.max(0, ...sizes.filter((size) => size <= 10_000));
const subjects: Subject[] = [];
try {
  for (const size of [0, ...sizes]) {
    const dataDir = mkdtempSync(`${tmpdir()}/scribe-creation-bench-`);
    const subject: Subject = { size, dataDir, token: "", service: null, samples: [] };
    subjects.push(subject);
    const { token, userId } = await register(dataDir);
    subject.token = token;
    const seedSeconds = size > 0 ? await seedHistory(dataDir, userId, size) : 0;
    console.log(`history ${String(size).padStart(7)} tasks: seeded in ${seedSeconds.toFixed(1)} s`);
  }
  // Every size's service runs from here to the end, so that each size can be measured next to the others.
  await Promise.all(
    subjects.map(async (subject) => {
      subject.service = await startServiceProcess(env, subject.dataDir);
    }),
  );
  const serviceOf = (subject: Subject) => subject.service!;
  for (let i = 0; i < 20; i++) for (const subject of subjects) await createOne(serviceOf(subject), subject.token, i); // warm-up

  // Sequential creates in turns, one request at a time to each size, forwards then backwards (0, 100, 2000;
  // 2000, 100, 0; ...), so that whatever a loaded machine does weighs on every size alike: each p50 is of samples
  // taken side by side with the others'. (A p50 per round of ten and the median of the rounds' ratios would be
  // adjacent too, but on a busy machine ten samples are too few: rounds' ratios ranged from 0.46 to 5.89.)
  for (let i = 0; i < creates; i++)
    for (const subject of i % 2 === 0 ? subjects : [...subjects].reverse()) subject.samples.push(await createOne(serviceOf(subject), subject.token, 100 + i));
  const p50 = (subject: Subject, from = 0, to = creates) => percentile(subject.samples.slice(from, to), 50);
  const base = subjects.find((s) => s.size === 100);
  for (const subject of subjects) {
    const { size, samples } = subject;
    // The ratio in each half of the run too: how far it moves is how far to trust it.
    const halves =
      base && size > 0 && size !== 100
        ? `; ÷ p50 at 100 ${(p50(subject) / p50(base)).toFixed(2)} (first half ${(p50(subject, 0, creates >> 1) / p50(base, 0, creates >> 1)).toFixed(2)}, second ${(p50(subject, creates >> 1) / p50(base, creates >> 1)).toFixed(2)})`
        : "";
    console.log(
      `history ${String(size).padStart(7)} tasks: POST /api/tasks p50 ${p50(subject).toFixed(2)} ms, p99 ${percentile(samples, 99).toFixed(2)} ms${halves}`,
    );
  }

  // Sustained creation with no history and at `throughputAt`, in slices taken in turns (that size, then none;
  // none, then that size; ...): that size ÷ none per round, and the median of the rounds.
  const none = subjects.find((s) => s.size === 0)!;
  const busiest = subjects.find((s) => s.size === throughputAt);
  let sustained: { none: number; at: number; ratio: number } | null = null;
  if (busiest && throughputAt > 0) {
    const slices = quick ? 3 : 5; // odd, so that the median ratio is one round's
    const pairs = await inTurns(slices, (side) => {
      const subject = side === "a" ? busiest : none;
      return throughput(serviceOf(subject), subject.token, throughputSeconds / slices);
    });
    console.log(
      `sustained creation (3 clients), ${throughputAt} ÷ none by round: ${pairs.map((p) => `${p.a.toFixed(1)} ÷ ${p.b.toFixed(1)} tasks/s`).join(", ")}`,
    );
    sustained = { none: median(pairs.map((p) => p.b)), at: median(pairs.map((p) => p.a)), ratio: medianRatio(pairs) };
  }

  for (const subject of subjects) figure(`POST /api/tasks p50, history of ${subject.size}`, p50(subject), "ms");
  const largest = Math.max(...sizes);
  for (const size of sizes)
    if (size !== 100 && base)
      figure(`p50 at ${size} ÷ p50 at 100`, p50(subjects.find((s) => s.size === size)!) / p50(base!), "×", size === largest ? { op: "<=", value: 1.5 } : null);
  if (sustained) {
    figure("sustained creation, no history", sustained.none, "tasks/s");
    figure(`sustained creation at ${throughputAt} ÷ none`, sustained.ratio * 100, "%", { op: ">=", value: 80 });
  }
} finally {
  await Promise.all(subjects.map((subject) => subject.service?.stop()));
  for (const { dataDir } of subjects) rmSync(dataDir, { recursive: true, force: true });
}
