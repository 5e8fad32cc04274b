import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { NewEvent, RecordedEvent } from "../../src/core/event.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { eventStoreContract } from "../contracts/eventstore.contract.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-eventstore-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

eventStoreContract("SqliteEventStore (file)", async () => {
  const store = new SqliteEventStore(join(dir, "file", "events.sqlite"));
  return { store, close: () => store.close() };
});

eventStoreContract("SqliteEventStore (:memory:)", async () => {
  const store = new SqliteEventStore(":memory:");
  return { store, close: () => store.close() };
});

const event = (type: string): NewEvent => ({
  id: crypto.randomUUID(),
  type,
  data: {},
  metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
});

describe("SqliteEventStore specifics", () => {
  test("a second process's appends reach a subscription within a second (the operator CLI case)", async () => {
    const path = join(dir, "shared.sqlite");
    const server = new SqliteEventStore(path);
    const cli = new SqliteEventStore(path);
    const seen: RecordedEvent[] = [];
    const subscription = server.subscribe({}, (e) => {
      seen.push(e);
    });
    await Bun.sleep(50);
    const appendedAt = Date.now();
    await cli.append("user-1", [event("BalanceGranted")], { expectedRevision: "no_stream" });
    while (seen.length === 0 && Date.now() - appendedAt < 1000) await Bun.sleep(5);
    expect(seen.map((e) => e.type)).toEqual(["BalanceGranted"]);
    // The conflict check holds across connections too.
    await expect(server.append("user-1", [event("Other")], { expectedRevision: "no_stream" })).rejects.toThrow("expected revision");
    await subscription.stop();
    await cli.close();
    await server.close();
  });

  test("appenders in four processes never both win the same revision", async () => {
    const path = join(dir, "contended.sqlite");
    // Each process appends 25 times with read-then-append-at-revision, retrying on conflict, like a command handler.
    const script = `
      import { SqliteEventStore } from ${JSON.stringify(join(import.meta.dir, "../../src/eventstore/sqlite.ts"))};
      import { WrongExpectedRevisionError } from ${JSON.stringify(join(import.meta.dir, "../../src/core/event-store.ts"))};
      const store = new SqliteEventStore(${JSON.stringify(path)});
      for (let i = 0; i < 25; i++) {
        for (;;) {
          const events = await store.readStream("counter-1");
          const expectedRevision = events.length === 0 ? "no_stream" : events.length - 1;
          const e = { id: crypto.randomUUID(), type: "Incremented", data: {}, metadata: { correlationId: "c", causationId: null, userId: null, system: "test" } };
          try { await store.append("counter-1", [e], { expectedRevision }); break; }
          catch (err) { if (!(err instanceof WrongExpectedRevisionError)) throw err; }
        }
      }
      await store.close();`;
    const children = Array.from({ length: 4 }, () => Bun.spawn([process.execPath, "-e", script], { stderr: "inherit" }));
    expect(await Promise.all(children.map((c) => c.exited))).toEqual([0, 0, 0, 0]);
    const store = new SqliteEventStore(path);
    expect((await store.readStream("counter-1")).map((e) => e.revision)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    await store.close();
  });

  test("a batch that is only partly stored already is refused, and nothing of it is stored", async () => {
    const store = new SqliteEventStore(":memory:");
    const [a, b, c] = [event("A"), event("B"), event("C")];
    await store.append("task-1", [a, b], { expectedRevision: "no_stream" });
    await expect(store.append("task-1", [b, c], { expectedRevision: "any" })).rejects.toThrow("already stored");
    await expect(store.append("task-1", [c, b], { expectedRevision: 1 })).rejects.toThrow("already stored");
    await expect(store.append("task-2", [a, b], { expectedRevision: "no_stream" })).rejects.toThrow("already stored");
    expect((await store.readAll()).map((e) => e.type)).toEqual(["A", "B"]);
    await store.close();
  });

  test("an empty batch is refused", async () => {
    const store = new SqliteEventStore(":memory:");
    await expect(store.append("task-1", [], { expectedRevision: "any" })).rejects.toThrow("no events");
    await store.close();
  });
});
