/**
 * Events typed end to end: a projection or worker declares the union of events it reads, and only those reach it,
 * so no `as unknown as` is needed to read one. Stream names are taken apart in one place (core/event.ts).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { isOneOf, numericStreamId, parseStreamName, streamId, type NewEvent, type Recorded } from "../../src/core/event.ts";
import { applyDeclared, type Projection } from "../../src/core/projection.ts";
import { deliverTo, type Worker } from "../../src/core/worker.ts";
import type { BusMessage } from "../../src/bus/port.ts";
import { measureCodeShape } from "../../scripts/code-shape.ts";

type Opened = { type: "CounterOpened"; data: { limit: number } };
type Incremented = { type: "CounterIncremented"; data: { by: number } };

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
const opened = (limit: number): NewEvent => ({ id: crypto.randomUUID(), type: "CounterOpened", data: { limit }, metadata });
const incremented = (by: number): NewEvent => ({ id: crypto.randomUUID(), type: "CounterIncremented", data: { by }, metadata });
const recorded = (event: NewEvent, position: number) => ({ ...event, streamName: "counter-a", revision: position - 1, position, time: "t" });

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("typed events", () => {
  test("the runner hands a projection only the events of its declared types", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scribe-typed-events-"));
    dirs.push(dir);
    const store = new SqliteEventStore(join(dir, "events.sqlite"));
    const db = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
    const seen: Recorded<Opened>[] = [];
    const limits: Projection<Opened> = {
      name: "limits",
      collections: [],
      eventTypes: ["CounterOpened"],
      async apply(event) {
        seen.push(event);
      },
    };
    const runner = new ProjectionRunner(store, db, [limits]);
    await runner.start();
    try {
      await store.append("counter-a", [opened(5), incremented(2)], { expectedRevision: "no_stream" });
      const { position } = await store.append("counter-b", [incremented(3), opened(7)], { expectedRevision: "no_stream" });
      await runner.waitFor(position);
      expect(seen.map((event) => [event.type, event.data.limit])).toEqual([
        ["CounterOpened", 5],
        ["CounterOpened", 7],
      ]);
    } finally {
      await runner.stop();
      await store.close();
      await db.close();
    }
  });

  test("applyDeclared and deliverTo pass on an event of the declared types only", async () => {
    const applied: string[] = [];
    const projection: Projection<Incremented> = {
      name: "increments",
      collections: [],
      eventTypes: ["CounterIncremented"],
      async apply(event) {
        applied.push(`by ${event.data.by}`);
      },
    };
    const handled: string[] = [];
    const worker: Worker<Opened> = {
      name: "openings",
      subject: "scribe.counter.>",
      eventTypes: ["CounterOpened"],
      async handle(event) {
        handled.push(`limit ${event.data.limit}`);
      },
    };
    const db = new EmbeddedDocumentStore(":memory:");
    const message = {} as BusMessage;
    for (const [index, event] of [opened(4), incremented(1)].entries()) {
      await applyDeclared(projection, recorded(event, index + 1), db);
      await deliverTo(worker, recorded(event, index + 1), message);
    }
    expect(applied).toEqual(["by 1"]);
    expect(handled).toEqual(["limit 4"]);
    await db.close();
  });

  test("isOneOf narrows a stream's events to a union by their declared types", () => {
    const events = [recorded(opened(9), 1), recorded(incremented(2), 2)];
    expect(events.filter(isOneOf<Incremented>(["CounterIncremented"])).map((event) => event.data.by)).toEqual([2]);
  });

  test("stream names are taken apart in one place", () => {
    expect(parseStreamName("task-42")).toEqual({ category: "task", id: "42" });
    expect(parseStreamName("upload-3f2a-77")).toEqual({ category: "upload", id: "3f2a-77" });
    expect(parseStreamName("relay")).toEqual({ category: "relay", id: "" });
    expect(streamId("upload-3f2a-77", "upload")).toBe("3f2a-77");
    expect(streamId("task-42", "upload")).toBeNull();
    expect(numericStreamId("task-42", "task")).toBe(42);
    expect(numericStreamId("task-4x", "task")).toBeNull();
    expect(numericStreamId("user-42", "task")).toBeNull();
  });

  test("no `as unknown as` cast in src, projections or workers", () => {
    expect(measureCodeShape().casts.map((cast) => `${cast.file}:${cast.line}`)).toEqual([]);
  });
});
