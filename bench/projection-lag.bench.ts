// Append → visible in the read model, embedded profile: `bun bench/projection-lag.bench.ts [appends]`
// (default 1,000; 200 in quick mode). Goal: p99 ≤ 20 ms.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../src/readmodels/embedded.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { counterProjection } from "../test/support/counter-projection.ts";
import { percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const appends = numberArgument(0, 1000, 200);

const dir = mkdtempSync(join(tmpdir(), "scribe-lag-"));
const store = new SqliteEventStore(join(dir, "events.sqlite"));
const db = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
const runner = new ProjectionRunner(store, db, [counterProjection]);
await runner.start();
const metadata = { correlationId: "bench", causationId: null, userId: null, system: "bench" };
const counters = db.collection("counters");
const samples: number[] = [];
try {
  await store.append("counter-lag", [{ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 1e9 }, metadata }], { expectedRevision: "no_stream" });
  for (let i = 0; i < appends; i++) {
    const started = performance.now();
    const { position } = await store.append("counter-lag", [{ id: crypto.randomUUID(), type: "CounterIncremented", data: { by: 1 }, metadata }], {
      expectedRevision: i,
    });
    // Visible means a reader of the read model sees it: poll the document, not the runner's memory.
    while ((((await counters.findOne({ _id: "counter-lag" }))?._position as number | undefined) ?? 0) < position) await new Promise((r) => setImmediate(r));
    samples.push(performance.now() - started);
  }
  console.log(
    `projection lag, append → visible in read model (${appends} appends): p50 ${percentile(samples, 50).toFixed(2)} ms, p99 ${percentile(samples, 99).toFixed(2)} ms, max ${Math.max(...samples).toFixed(2)} ms (goal p99 ≤ 20 ms)`,
  );
  figure("append → visible p50", percentile(samples, 50), "ms");
  figure("append → visible p99", percentile(samples, 99), "ms", { op: "<=", value: 20 });
} finally {
  await runner.stop();
  await db.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
