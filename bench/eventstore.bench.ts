// Figures for the embedded event store on a temp-dir file: `bun bench/eventstore.bench.ts`.
// Goals: batched appends >= 20,000 events/s; single-event append p99 <= 2 ms; a 1,000-event stream read in
// <= 5 ms (median); subscription lag p99 <= 20 ms. Quick mode appends fewer events (5,000, 500 and 200).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEvent } from "../src/core/event.ts";
import { SqliteEventStore } from "../src/eventstore/sqlite.ts";
import { figure } from "./support/figures.ts";
import { sized } from "./support/quick.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-bench-"));
const store = new SqliteEventStore(join(dir, "events.sqlite"));

const event = (i: number): NewEvent => ({
  id: crypto.randomUUID(),
  type: "TaskRenamed",
  data: { taskId: i, name: `Interview ${i}`, folderId: null },
  metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: 1, system: null },
});

import { percentile } from "./support/stats.ts";

const ms = (n: number) => n.toFixed(3);
const batchCount = sized(500, 50);
const singleCount = sized(2000, 500);
const liveCount = sized(500, 200);

try {
  // Batched appends: 50,000 events in batches of 100, each batch its own stream revision step.
  const batches = Array.from({ length: batchCount }, (_, b) => Array.from({ length: 100 }, (_, i) => event(b * 100 + i)));
  let start = performance.now();
  for (const [b, batch] of batches.entries()) {
    await store.append("bench-batched", batch, { expectedRevision: b === 0 ? "no_stream" : b * 100 - 1 });
  }
  const perSecond = (batchCount * 100) / ((performance.now() - start) / 1000);
  console.log(`batched appends: ${Math.round(perSecond)} events/s (${batchCount * 100} events in batches of 100; goal >= 20,000)`);
  figure("batched appends", perSecond, "events/s", { op: ">=", value: 20_000 });

  // Single-event appends, each to its own stream as a command handler would.
  const single: number[] = [];
  for (let i = 0; i < singleCount; i++) {
    const e = event(i);
    start = performance.now();
    await store.append(`bench-single-${i}`, [e], { expectedRevision: "no_stream" });
    single.push(performance.now() - start);
  }
  console.log(`single-event append: p50 ${ms(percentile(single, 50))} ms, p99 ${ms(percentile(single, 99))} ms (${singleCount} appends; goal p99 <= 2 ms)`);
  figure("single-event append p99", percentile(single, 99), "ms", { op: "<=", value: 2 });

  // Reading a 1,000-event stream (a long-lived user stream).
  const long = Array.from({ length: 1000 }, (_, i) => event(i));
  await store.append("bench-long", long, { expectedRevision: "no_stream" });
  const reads: number[] = [];
  for (let i = 0; i < 20; i++) {
    start = performance.now();
    const events = await store.readStream("bench-long");
    reads.push(performance.now() - start);
    if (events.length !== 1000) throw new Error(`read ${events.length} events`);
  }
  console.log(`read of a 1,000-event stream: median ${ms(percentile(reads, 50))} ms (20 reads; goal <= 5 ms)`);
  figure("read of a 1,000-event stream, median", percentile(reads, 50), "ms", { op: "<=", value: 5 });

  // Projection lag: append to a subscription's handler, in the same process.
  const lags: number[] = [];
  let appendedAt = 0;
  let received = 0;
  const head = (await store.readAll()).at(-1)!.position;
  const subscription = store.subscribe({ after: head }, () => {
    lags.push(performance.now() - appendedAt);
    received += 1;
  });
  for (let i = 0; i < liveCount; i++) {
    appendedAt = performance.now();
    await store.append(`bench-lag-${i}`, [event(i)], { expectedRevision: "no_stream" });
    while (received <= i) await Bun.sleep(0);
  }
  await subscription.stop();
  console.log(`subscription lag: p50 ${ms(percentile(lags, 50))} ms, p99 ${ms(percentile(lags, 99))} ms (${liveCount} live appends; goal p99 <= 20 ms)`);
  figure("subscription lag p99", percentile(lags, 99), "ms", { op: "<=", value: 20 });
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
