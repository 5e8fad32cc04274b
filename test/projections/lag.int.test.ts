/** Projection lag as the metrics report it: events not folded yet, and the age of the oldest of them. */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { projectionLags } from "../../projections/lag.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-lag-"));
const store = new SqliteEventStore(join(dir, "events.sqlite"));
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test("a projection behind by three events is three events and the oldest one's age behind; one at the head is 0 and 0", async () => {
  const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
  const event = (n: number) => ({ id: crypto.randomUUID(), type: "Counted", data: { n }, metadata });
  const first = await store.append("counter-1", [event(1)], { expectedRevision: "no_stream" });
  const last = await store.append("counter-1", [event(2), event(3), event(4)], { expectedRevision: 0 });
  const [oldestBehind] = await store.readAll({ after: first.position, limit: 1 });
  const now = Date.parse(oldestBehind!.time) + 7_000;

  const lags = await projectionLags(
    store,
    new Map([
      ["behind", first.position],
      ["current", last.position],
      ["new", 0],
    ]),
    now,
  );
  expect(lags).toEqual([
    { projection: "behind", events: 3, seconds: 7 },
    { projection: "current", events: 0, seconds: 0 },
    { projection: "new", events: 4, seconds: expect.any(Number) },
  ]);
});
