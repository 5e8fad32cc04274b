import { afterEach, describe, expect, test } from "bun:test";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { tasksProjection } from "../../src/tasks/tasks-projection.ts";
import { countFolderDeleted, countTaskChange, emptyCounts, updateTaskCounts, type TaskCountsDocument } from "../../src/tasks/task-counts.ts";
import { taskStream, type TaskEvent } from "../../src/tasks/events.ts";
import { userStream } from "../../src/accounts/events.ts";
import type { FolderEvent } from "../../src/folders/events.ts";
import type { RecordedEvent } from "../../src/core/event.ts";
import { applyDeclared, declaredBy } from "../../src/core/projection.ts";

describe("task counts (pure)", () => {
  test("given no tasks, when one is created, then it counts in total, its status and uncategorized", () => {
    expect(countTaskChange(emptyCounts(7), null, { status: "pending", folderId: null })).toEqual({
      userId: 7,
      total: 1,
      byStatus: { pending: 1 },
      byFolder: { none: 1 },
    });
  });

  test("given a pending task, when it moves to folder 3 and fails, then the counts follow it and drop empty keys", () => {
    const one = countTaskChange(emptyCounts(7), null, { status: "pending", folderId: null });
    const moved = countTaskChange(one, { status: "pending", folderId: null }, { status: "failed", folderId: 3 });
    expect(moved).toEqual({ userId: 7, total: 1, byStatus: { failed: 1 }, byFolder: { "3": 1 } });
  });

  test("given tasks in folder 3, when the folder is deleted, then they count as uncategorized", () => {
    const counts = { userId: 7, total: 3, byStatus: { finished: 3 }, byFolder: { "3": 2, none: 1 } };
    expect(countFolderDeleted(counts, 3)).toEqual({ userId: 7, total: 3, byStatus: { finished: 3 }, byFolder: { none: 3 } });
  });

  test("given a task, when it is deleted, then nothing is left counted", () => {
    const one = countTaskChange(emptyCounts(7), null, { status: "finished", folderId: 2 });
    expect(countTaskChange(one, { status: "finished", folderId: 2 }, null)).toEqual(emptyCounts(7));
  });
});

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
const stores: { store: SqliteEventStore; db: EmbeddedDocumentStore }[] = [];
afterEach(async () => {
  for (const { store, db } of stores.splice(0)) {
    await db.close();
    await store.close();
  }
});

async function history() {
  const store = new SqliteEventStore(":memory:");
  const db = new EmbeddedDocumentStore(":memory:");
  stores.push({ store, db });
  await tasksProjection.setup?.(db);
  const append = (stream: string, events: (TaskEvent | FolderEvent)[]) =>
    store.append(
      stream,
      events.map((e) => ({ id: crypto.randomUUID(), type: e.type, data: e.data, metadata })),
      { expectedRevision: "any" },
    );
  const created = (taskId: number, userId: number): TaskEvent => ({
    type: "TaskCreated",
    data: {
      taskId,
      userId,
      name: `Task ${taskId}`,
      file: null,
      path: `p/${taskId}`,
      disk: "objstore",
      size: 1,
      duration: 1,
      cost: null,
      url: null,
      speakerDiarization: false,
      transcript: null,
      createdAt: new Date().toISOString(),
    },
  });
  for (let id = 1; id <= 6; id++) await append(taskStream(id), [created(id, id <= 4 ? 1 : 2)]);
  await append(taskStream(2), [{ type: "TaskMoved", data: { userId: 1, taskId: 2, folder: { id: 9, name: "Work" } } }]);
  await append(taskStream(3), [
    { type: "TaskMoved", data: { userId: 1, taskId: 3, folder: { id: 9, name: "Work" } } },
    { type: "TranscriptionStarted", data: { userId: 1, taskId: 3 } },
  ]);
  await append(taskStream(4), [{ type: "TaskFailed", data: { userId: 1, taskId: 4, attempt: 1, name: "Task 4", reason: "no audio" } }]);
  await append(taskStream(1), [{ type: "TaskDeleted", data: { userId: 1, taskId: 1, wasInFlight: true, attempt: 1 } }]);
  await append(userStream(1), [{ type: "FolderRenamed", data: { folderId: 9, name: "Job", previousName: "Work" } }]);
  await append(taskStream(5), [{ type: "TaskMoved", data: { userId: 2, taskId: 5, folder: { id: 10, name: "Home" } } }]);
  await append(userStream(2), [{ type: "FolderDeleted", data: { folderId: 10, name: "Home" } }]);
  const events = await store.readAll({ after: 0, limit: 1000 });
  return { db, events: events.filter(declaredBy(tasksProjection)) };
}

/** What the counts should say, counted the slow way in the tasks read model. */
async function counted(db: EmbeddedDocumentStore, userId: number, folderIds: number[]) {
  const tasks = db.collection("tasks");
  const byStatus: Record<string, number> = {};
  for (const status of ["pending", "waiting", "scribing", "finished", "failed"]) {
    const n = await tasks.countDocuments({ userId, status });
    if (n > 0) byStatus[status] = n;
  }
  const byFolder: Record<string, number> = {};
  for (const folderId of [null, ...folderIds]) {
    const n = await tasks.countDocuments({ userId, folderId });
    if (n > 0) byFolder[folderId === null ? "none" : String(folderId)] = n;
  }
  return { userId, total: await tasks.countDocuments({ userId }), byStatus, byFolder };
}

async function countsOf(db: EmbeddedDocumentStore, userId: number) {
  const doc = await db.collection<TaskCountsDocument>("task_counts").findOne({ _id: String(userId) });
  if (doc === null) return null;
  const { _id, _position, ...rest } = doc;
  return rest;
}

describe("task counts (tasks projection)", () => {
  test("after every event, each user's counts equal what counting the tasks gives, and none is left changing", async () => {
    const { db, events } = await history();
    for (const event of events) {
      await applyDeclared(tasksProjection, event, db);
      for (const userId of [1, 2]) {
        const counts = await countsOf(db, userId);
        if (counts !== null) expect(counts).toEqual(await counted(db, userId, [9, 10]));
      }
    }
    expect(await countsOf(db, 1)).toEqual({ userId: 1, total: 3, byStatus: { pending: 1, scribing: 1, failed: 1 }, byFolder: { none: 1, "9": 2 } });
    expect(await countsOf(db, 2)).toEqual({ userId: 2, total: 2, byStatus: { pending: 2 }, byFolder: { none: 2 } });
  });

  test("when every event arrives a second time, nothing changes", async () => {
    const { db, events } = await history();
    for (const event of events) await applyDeclared(tasksProjection, event, db);
    const before = [await countsOf(db, 1), await countsOf(db, 2)];
    for (const event of events) await applyDeclared(tasksProjection, event, db);
    expect([await countsOf(db, 1), await countsOf(db, 2)]).toEqual(before);
  });

  test("when a crash came after the counts were written but before the task, the event arriving again leaves both right", async () => {
    const { db, events } = await history();
    const moved = events.findIndex((e: RecordedEvent) => e.type === "TaskMoved");
    for (const event of events.slice(0, moved)) await applyDeclared(tasksProjection, event, db);
    // The first half of applying the move: its counts, then the process died.
    await updateTaskCounts(db, 1, events[moved]!.position, (counts) =>
      countTaskChange(counts, { status: "pending", folderId: null }, { status: "pending", folderId: 9 }),
    );
    expect((await db.collection<TaskCountsDocument>("task_counts").findOne({ _id: "1" }))?.changing).toBe(events[moved]!.position);
    for (const event of events.slice(moved)) await applyDeclared(tasksProjection, event, db);
    expect(await countsOf(db, 1)).toEqual(await counted(db, 1, [9]));
  });
});
