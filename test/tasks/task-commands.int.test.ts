import { describe, expect, test } from "bun:test";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import type { EventStore } from "../../src/core/event-store.ts";
import { TaskCommands } from "../../src/tasks/commands.ts";
import type { TaskCommand } from "../../src/tasks/decider.ts";

const metadata = { correlationId: "c-1", causationId: null, userId: 1, system: null };

/** The store, counting its appends. */
function countingStore(): { store: EventStore; appends: () => number } {
  const inner = new SqliteEventStore(":memory:");
  let appends = 0;
  const store = new Proxy(inner, {
    get(target, property, receiver) {
      if (property === "append") {
        return (...args: Parameters<EventStore["append"]>) => {
          appends++;
          return target.append(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { store, appends: () => appends };
}

const create: TaskCommand = {
  type: "CreateTask",
  now: "2026-01-01T00:00:00.000Z",
  task: {
    taskId: 7,
    userId: 1,
    name: "Interview",
    file: null,
    path: "uploads/1/a.mp3",
    disk: "objstore",
    size: 10,
    duration: 60,
    cost: null,
    url: null,
    speakerDiarization: false,
    transcript: null,
  },
};

describe("the task's commands", () => {
  test("several commands are decided in turn and appended at once, in their order", async () => {
    const { store, appends } = countingStore();
    const tasks = new TaskCommands(store);
    await tasks.run(7, create, { metadata });
    const before = appends();
    const result = await tasks.run(
      7,
      [
        { type: "MoveTask", folder: { id: 3, name: "Work" } },
        { type: "RenameTask", name: "Interview, cut" },
        { type: "RenameTask", name: "Interview, cut" },
        { type: "RateTask", quality: 4 },
      ],
      { metadata },
    );
    expect(appends() - before).toBe(1);
    // The second rename is decided on the state the first left: nothing to change.
    expect(result.events.map((e) => e.type)).toEqual(["TaskMoved", "TaskRenamed", "TaskRated"]);
    expect((await tasks.events(7)).map((e) => e.type)).toEqual(["TaskCreated", "TaskMoved", "TaskRenamed", "TaskRated"]);
  });

  test("a prepared command is decided once, and again only when the task changed before its append", async () => {
    const { store } = countingStore();
    const tasks = new TaskCommands(store);
    await tasks.run(7, [create, { type: "StartTranscription" }, { type: "FailTask", reason: "no audio" }], { metadata });
    const revisions: number[] = [];
    const retry = await tasks.prepare(7, { type: "RetryTask" }, ({ revision }) => revisions.push(revision));
    await retry.append({ metadata });
    expect(revisions).toEqual([2]);

    await tasks.run(7, [{ type: "StartTranscription" }, { type: "FailTask", reason: "no audio" }], { metadata });
    const seen: number[] = [];
    const again = await tasks.prepare(7, { type: "RetryTask" }, ({ revision }) => seen.push(revision));
    await tasks.run(7, { type: "RenameTask", name: "Renamed meanwhile" }, { metadata });
    const { events } = await again.append({ metadata });
    expect(seen).toEqual([5, 6]);
    expect(events.map((e) => e.type)).toEqual(["TaskRetried"]);
  });

  test("a refused command is refused when prepared, before the caller's work", async () => {
    const tasks = new TaskCommands(new SqliteEventStore(":memory:"));
    await tasks.run(7, create, { metadata });
    await expect(tasks.prepare(7, { type: "RetryTask" })).rejects.toThrow("Only a failed task can be retried.");
  });
  test("a follow-up is appended with the command that allows it, or not at all when that command changes nothing", async () => {
    const { store, appends } = countingStore();
    const tasks = new TaskCommands(store);
    await tasks.run(7, [create, { type: "StartTranscription" }], { metadata });
    const finish: TaskCommand = { type: "FinishTask", transcript: null, duration: 60, cost: 60, summary: null, mindmap: null, attempt: 1 };
    const summaryFailed: TaskCommand = { type: "RecordSummaryFailure", reason: "no model" };
    const before = appends();
    const { events } = await tasks.runThen(7, finish, [summaryFailed], { metadata });
    expect(appends() - before).toBe(1);
    expect(events.map((e) => e.type)).toEqual(["TaskFinished", "SummaryFailed"]);
    // A late delivery of the same finish changes nothing, so its follow-up is not recorded again.
    const again = await tasks.runThen(7, finish, [summaryFailed], { metadata });
    expect(again.events).toEqual([]);
    expect(appends() - before).toBe(1);
  });
});
