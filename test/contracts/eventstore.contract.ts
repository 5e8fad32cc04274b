import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EventMetadata, NewEvent, RecordedEvent } from "../../src/core/event.ts";
import { WrongExpectedRevisionError, type EventStore } from "../../src/core/event-store.ts";
import { EventTooLargeError, maxEventBytes } from "../../src/eventstore/event-size.ts";

type Opened = { store: EventStore; close: () => Promise<void> };

/** Unique per test, so the suite can run against a shared EventStoreDB that already holds other events. */
const streamName = (prefix = "contract") => `${prefix}-${crypto.randomUUID().replaceAll("-", "")}`;

const meta: EventMetadata = { correlationId: "corr-1", causationId: null, userId: null, system: "test" };
const event = (type: string, data: Record<string, unknown> = {}, metadata = meta): NewEvent => ({
  id: crypto.randomUUID(),
  type,
  data,
  metadata,
});

async function waitUntil(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

async function conflictOf(promise: Promise<unknown>): Promise<WrongExpectedRevisionError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WrongExpectedRevisionError);
  return error as WrongExpectedRevisionError;
}

export function eventStoreContract(adapterName: string, open: () => Promise<Opened>): void {
  describe(`EventStore contract: ${adapterName}`, () => {
    let opened: Opened;
    let store: EventStore;
    beforeAll(async () => {
      opened = await open();
      store = opened.store;
    });
    afterAll(async () => {
      await opened.close();
    });

    test("appends to a new stream with no_stream", async () => {
      const s = streamName();
      const result = await store.append(s, [event("A"), event("B")], { expectedRevision: "no_stream" });
      expect(result.nextRevision).toBe(1);
      const read = await store.readStream(s);
      expect(read.map((e) => [e.type, e.revision, e.streamName])).toEqual([
        ["A", 0, s],
        ["B", 1, s],
      ]);
      expect(read[1]!.position).toBe(result.position);
    });

    test("an event over 64 KiB is refused with a clear error, and nothing of its batch is stored", async () => {
      const s = streamName();
      const fits = event("Fits", { text: "x".repeat(maxEventBytes - 200) });
      await store.append(s, [fits], { expectedRevision: "no_stream" });
      const big = event("Big", { text: "é".repeat(maxEventBytes / 2) });
      const error = await store.append(s, [event("Small"), big], { expectedRevision: 0 }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(EventTooLargeError);
      expect((error as EventTooLargeError).message).toMatch(/Big .* is \d+ bytes; events are limited to 65536 bytes/);
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(["Fits"]);
    });

    test("readStream reads a window: from a revision, at most maxCount", async () => {
      const s = streamName();
      await store.append(
        s,
        ["A", "B", "C", "D"].map((t) => event(t)),
        { expectedRevision: "no_stream" },
      );
      expect((await store.readStream(s, { fromRevision: 1, maxCount: 2 })).map((e) => e.type)).toEqual(["B", "C"]);
      expect((await store.readStream(s, { fromRevision: 3 })).map((e) => e.type)).toEqual(["D"]);
      expect(await store.readStream(s, { fromRevision: 4 })).toEqual([]);
      expect(await store.readStream(streamName("none"), { fromRevision: 2, maxCount: 1 })).toEqual([]);
    });

    test("no_stream on an existing stream conflicts with a typed error", async () => {
      const s = streamName();
      await store.append(s, [event("A")], { expectedRevision: "no_stream" });
      const error = await conflictOf(store.append(s, [event("B")], { expectedRevision: "no_stream" }));
      expect([error.streamName, error.expected, error.actual]).toEqual([s, "no_stream", 0]);
    });

    test("an exact revision succeeds, then the same (stale) revision conflicts", async () => {
      const s = streamName();
      await store.append(s, [event("A")], { expectedRevision: "no_stream" });
      expect((await store.append(s, [event("B")], { expectedRevision: 0 })).nextRevision).toBe(1);
      const error = await conflictOf(store.append(s, [event("C")], { expectedRevision: 0 }));
      expect([error.streamName, error.expected, error.actual]).toEqual([s, 0, 1]);
      const missing = await conflictOf(store.append(streamName(), [event("D")], { expectedRevision: 3 }));
      expect(missing.actual).toBe("no_stream");
    });

    test("'any' appends whether or not the stream exists", async () => {
      const s = streamName();
      expect((await store.append(s, [event("A")], { expectedRevision: "any" })).nextRevision).toBe(0);
      expect((await store.append(s, [event("B")], { expectedRevision: "any" })).nextRevision).toBe(1);
    });

    test("appending the same batch twice stores it once and answers the same", async () => {
      const s = streamName();
      const batch = [event("A"), event("B")];
      const first = await store.append(s, batch, { expectedRevision: "no_stream" });
      expect(await store.append(s, batch, { expectedRevision: "no_stream" })).toEqual(first);
      const next = [event("C"), event("D")];
      const second = await store.append(s, next, { expectedRevision: 1 });
      expect(await store.append(s, next, { expectedRevision: 1 })).toEqual(second);
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(["A", "B", "C", "D"]);
    });

    test("readStream keeps order and honours fromRevision; a missing stream reads []", async () => {
      const s = streamName();
      await store.append(
        s,
        ["A", "B", "C", "D"].map((t) => event(t)),
        { expectedRevision: "no_stream" },
      );
      expect((await store.readStream(s)).map((e) => e.type)).toEqual(["A", "B", "C", "D"]);
      expect((await store.readStream(s, { fromRevision: 2 })).map((e) => [e.type, e.revision])).toEqual([
        ["C", 2],
        ["D", 3],
      ]);
      expect(await store.readStream(s, { fromRevision: 9 })).toEqual([]);
      expect(await store.readStream(streamName("missing"))).toEqual([]);
    });

    test("readAll orders across streams and honours after and limit", async () => {
      const a = streamName();
      const b = streamName();
      const mark = await store.append(a, [event("A0")], { expectedRevision: "no_stream" });
      await store.append(b, [event("B0")], { expectedRevision: "no_stream" });
      await store.append(a, [event("A1")], { expectedRevision: 0 });
      const all = await store.readAll({ after: mark.position });
      const ours = all.filter((e) => e.streamName === a || e.streamName === b);
      expect(ours.map((e) => e.type)).toEqual(["B0", "A1"]);
      expect(all.every((e) => e.position > mark.position)).toBe(true);
      expect(await store.readAll({ after: mark.position, limit: 2 })).toEqual(all.slice(0, 2));
      const first = await store.readAll({ limit: 3 });
      expect(first.length).toBe(3);
      expect(first[0]!.position).toBeLessThanOrEqual(mark.position);
    });

    test("positions are strictly increasing across the log", async () => {
      const s = streamName();
      const mark = await store.append(s, [event("A")], { expectedRevision: "no_stream" });
      await store.append(s, [event("B"), event("C"), event("D")], { expectedRevision: 0 });
      await store.append(streamName(), [event("E")], { expectedRevision: "no_stream" });
      const positions = (await store.readAll({ after: mark.position })).map((e) => e.position);
      expect(positions.length).toBeGreaterThanOrEqual(4);
      for (const [i, p] of positions.entries()) expect(p).toBeGreaterThan(i === 0 ? mark.position : positions[i - 1]!);
      const inStream = (await store.readStream(s)).map((e) => e.position);
      expect([...inStream].sort((x, y) => x - y)).toEqual(inStream);
      expect(new Set(inStream).size).toBe(4);
    });

    test("data, metadata and time round-trip", async () => {
      const s = streamName();
      const metadata: EventMetadata = { correlationId: "corr-42", causationId: "cause-7", userId: 9, system: null };
      const sent = event("TaskCreated", { taskId: 42, name: "Ünïcode ✓", tags: ["a"], nested: { ok: true, none: null } }, metadata);
      const before = Date.now();
      await store.append(s, [sent], { expectedRevision: "no_stream" });
      const [got] = await store.readStream(s);
      expect(got!.id).toBe(sent.id);
      expect(got!.data).toEqual(sent.data);
      expect(got!.metadata).toEqual(metadata);
      expect(new Date(got!.time).toISOString()).toBe(got!.time);
      // Generous bounds: a real server's clock is not ours.
      expect(Math.abs(Date.parse(got!.time) - before)).toBeLessThan(60_000);
    });

    test("subscribe catches up from a checkpoint, then follows live appends in order, until stopped", async () => {
      const s = streamName();
      const mark = await store.append(s, [event("E0")], { expectedRevision: "no_stream" });
      await store.append(s, [event("E1"), event("E2")], { expectedRevision: 0 });
      const seen: RecordedEvent[] = [];
      const allPositions: number[] = [];
      const subscription = store.subscribe({ after: mark.position }, (e) => {
        allPositions.push(e.position);
        if (e.streamName === s) seen.push(e);
      });
      await waitUntil(() => seen.length === 2, "catch-up");
      await store.append(s, [event("E3")], { expectedRevision: 2 });
      await store.append(s, [event("E4")], { expectedRevision: 3 });
      await waitUntil(() => seen.length === 4, "live events");
      expect(seen.map((e) => [e.type, e.revision])).toEqual([
        ["E1", 1],
        ["E2", 2],
        ["E3", 3],
        ["E4", 4],
      ]);
      for (const [i, p] of allPositions.entries()) expect(p).toBeGreaterThan(i === 0 ? mark.position : allPositions[i - 1]!);
      await subscription.stop();
      await subscription.done;
      await store.append(s, [event("E5")], { expectedRevision: 4 });
      await Bun.sleep(200);
      expect(seen.length).toBe(4);
    });

    test("subscribe without a checkpoint starts at the beginning of the log", async () => {
      await store.append(streamName(), [event("A")], { expectedRevision: "no_stream" });
      const [firstEver] = await store.readAll({ limit: 1 });
      let first: RecordedEvent | null = null;
      const subscription = store.subscribe({}, (e) => {
        first ??= e;
      });
      await waitUntil(() => first !== null, "first event");
      await subscription.stop();
      expect(first!).toEqual(firstEver!);
    });

    test("stop() waits for the handler in flight", async () => {
      const s = streamName();
      const mark = await store.append(s, [event("A")], { expectedRevision: "no_stream" });
      await store.append(s, [event("B")], { expectedRevision: 0 });
      let started = false;
      let finished = false;
      const subscription = store.subscribe({ after: mark.position }, async (e) => {
        if (e.streamName !== s) return;
        started = true;
        await Bun.sleep(100);
        finished = true;
      });
      await waitUntil(() => started, "handler start");
      await subscription.stop();
      expect(finished).toBe(true);
    });

    test("a handler that throws rejects done and stops delivery", async () => {
      const s = streamName();
      const mark = await store.append(s, [event("A")], { expectedRevision: "no_stream" });
      await store.append(s, [event("Boom"), event("After")], { expectedRevision: 0 });
      const delivered: string[] = [];
      const subscription = store.subscribe({ after: mark.position }, (e) => {
        if (e.streamName !== s) return;
        delivered.push(e.type);
        if (e.type === "Boom") throw new Error("handler failed");
      });
      await expect(subscription.done).rejects.toThrow("handler failed");
      expect(delivered).toEqual(["Boom"]);
      await subscription.stop();
    });

    test("parallel appends with the same expected revision: exactly one wins", async () => {
      const s = streamName();
      await store.append(s, [event("Created")], { expectedRevision: "no_stream" });
      const attempts = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.append(s, [event(`Try${i}`)], { expectedRevision: 0 })));
      const won = attempts.filter((a) => a.status === "fulfilled");
      const lost = attempts.filter((a): a is PromiseRejectedResult => a.status === "rejected");
      expect(won.length).toBe(1);
      expect(lost.every((a) => a.reason instanceof WrongExpectedRevisionError)).toBe(true);
      expect((await store.readStream(s)).length).toBe(2);
    });
  });
}
