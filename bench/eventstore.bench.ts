// Figures for the embedded event store on a temp-dir file: `bun bench/eventstore.bench.ts`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEvent } from "../src/core/event.ts";
import { SqliteEventStore } from "../src/eventstore/sqlite.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-bench-"));
const store = new SqliteEventStore(join(dir, "events.sqlite"));

const event = (i: number): NewEvent => ({
  id: crypto.randomUUID(),
  type: "TaskRenamed",
  data: { taskId: i, name: `Interview ${i}`, folderId: null },
  metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: 1, system: null },
});

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (n: number) => n.toFixed(3);

try {
  // Batched appends: 50,000 events in batches of 100, each batch its own stream revision step.
  const batches = Array.from({ length: 500 }, (_, b) => Array.from({ length: 100 }, (_, i) => event(b * 100 + i)));
  let start = performance.now();
  for (const [b, batch] of batches.entries()) {
    await store.append("bench-batched", batch, { expectedRevision: b === 0 ? "no_stream" : b * 100 - 1 });
  }
  const perSecond = 50_000 / ((performance.now() - start) / 1000);
  console.log(`batched appends: ${Math.round(perSecond)} events/s (50,000 events in batches of 100; goal >= 20,000)`);

  // Single-event appends, each to its own stream as a command handler would.
  const single: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const e = event(i);
    start = performance.now();
    await store.append(`bench-single-${i}`, [e], { expectedRevision: "no_stream" });
    single.push(performance.now() - start);
  }
  console.log(`single-event append: p50 ${ms(percentile(single, 50))} ms, p99 ${ms(percentile(single, 99))} ms (2,000 appends; goal p99 <= 2 ms)`);

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

  // Projection lag: append to a subscription's handler, in the same process.
  const lags: number[] = [];
  let appendedAt = 0;
  let received = 0;
  const head = (await store.readAll()).at(-1)!.position;
  const subscription = store.subscribe({ after: head }, () => {
    lags.push(performance.now() - appendedAt);
    received += 1;
  });
  for (let i = 0; i < 500; i++) {
    appendedAt = performance.now();
    await store.append(`bench-lag-${i}`, [event(i)], { expectedRevision: "no_stream" });
    while (received <= i) await Bun.sleep(0);
  }
  await subscription.stop();
  console.log(`subscription lag: p50 ${ms(percentile(lags, 50))} ms, p99 ${ms(percentile(lags, 99))} ms (500 live appends; goal p99 <= 20 ms)`);
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
