import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { byUser, type NewEvent } from "../../src/core/event.ts";
import { protectEvents } from "../../src/erasure/protected-event-store.ts";
import { encryptStoredEvents, EncryptEventsRefused } from "../../src/erasure/encrypt-events.ts";
import { MemoryDataKeys } from "./memory-data-keys.ts";

/** `bun run admin encrypt-events`: events stored in the clear before encryption are encrypted in place, once. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const event = (type: string, data: Record<string, unknown>): NewEvent => ({ id: crypto.randomUUID(), type, data, metadata: byUser(7, "c") });

test("clear personal fields are encrypted in place, read the same, and a second run changes nothing", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-encrypt-"));
  dirs.push(dataDir);
  const file = join(dataDir, "events.sqlite");
  // As written before encryption: in the clear, the oldest task events without `userId` (upcast on read).
  const clear = new SqliteEventStore(file);
  await clear.append("task-1", [event("TaskCreated", { taskId: 1, userId: 7, name: "Clearname secret", path: "uploads/a.mp3", url: null })], {
    expectedRevision: "no_stream",
  });
  await clear.append("task-1", [event("TaskRenamed", { name: "Oldrename secret" })], { expectedRevision: 0 });
  await clear.append("task-2", [event("TaskCreated", { taskId: 2, userId: 8, name: "Erasedname secret", path: "uploads/b.mp3", url: null })], {
    expectedRevision: "no_stream",
  });
  await clear.append("user-7", [event("FolderCreated", { folderId: 1, name: "Clearfolder secret" })], { expectedRevision: "no_stream" });
  // A dead letter about a webhook message names no owner: it stays clear, and is counted.
  await clear.append("deadletter-00ff", [event("MessageDeadLettered", { stream: "webhookmessage-m", error: "Unscoped", task: null })], {
    expectedRevision: "no_stream",
  });
  await clear.close();
  const keys = new MemoryDataKeys();
  await keys.erase("task-2", 8);

  expect(await encryptStoredEvents({ dataDir, eventStoreUrl: null }, keys)).toEqual({ read: 5, encrypted: 4, deletedTasks: 0, clear: 1 });
  const stored = readFileSync(file, "utf8");
  expect(stored).not.toContain("secret");
  expect(stored).toContain("Unscoped");
  const store = protectEvents(new SqliteEventStore(file), keys);
  const names = (await store.readAll()).map((e) => (e.data as { name?: string }).name ?? null);
  expect(names).toEqual(["Clearname secret", "Oldrename secret", "[erased]", "Clearfolder secret", null]);
  expect(await keys.find("task-1")).not.toBeNull();
  expect((await keys.erasures()).map((e) => e.scope)).toEqual(["task-2"]);

  expect(await encryptStoredEvents({ dataDir, eventStoreUrl: null }, keys)).toEqual({ read: 5, encrypted: 0, deletedTasks: 0, clear: 1 });
  await store.close();
});

test("a task deleted before encryption is erased first, with its upload: its content is written erased, never under a live key", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-encrypt-"));
  dirs.push(dataDir);
  const file = join(dataDir, "events.sqlite");
  const upload = "0123456789abcdef0123456789abcdef";
  const path = `uploads/7/${upload}/deleted-secret.mp3`;
  const clear = new SqliteEventStore(file);
  await clear.append(`upload-${upload}`, [event("UploadSigned", { userId: 7, uploadId: upload, key: path, fileName: "deleted-secret.mp3" })], {
    expectedRevision: "no_stream",
  });
  // The oldest shape: only TaskCreated names the owner, the deletion does not.
  await clear.append(
    "task-1",
    [
      event("TaskCreated", { taskId: 1, userId: 7, name: "Deletedname secret", file: "deleted-secret.mp3", path, url: null }),
      event("TaskFailed", { taskId: 1, attempt: 1, name: "Deletedname secret", reason: "the host secret.example could not be resolved" }),
      event("TaskDeleted", { taskId: 1, wasInFlight: false, attempt: 1 }),
    ],
    { expectedRevision: "no_stream" },
  );
  await clear.append("task-2", [event("TaskCreated", { taskId: 2, userId: 7, name: "Kept name", path: "uploads/b.mp3", url: null })], {
    expectedRevision: "no_stream",
  });
  await clear.close();
  const keys = new MemoryDataKeys();

  expect(await encryptStoredEvents({ dataDir, eventStoreUrl: null }, keys)).toEqual({ read: 5, encrypted: 4, deletedTasks: 1, clear: 0 });
  expect(readFileSync(file, "utf8")).not.toContain("secret");
  expect(await keys.find("task-1")).toBe("erased");
  expect(await keys.find(`upload-${upload}`)).toBe("erased");
  expect((await keys.erasures()).map(({ scope, accountId }) => ({ scope, accountId }))).toEqual([
    { scope: "task-1", accountId: 7 },
    { scope: `upload-${upload}`, accountId: 7 },
  ]);
  const store = protectEvents(new SqliteEventStore(file), keys);
  const [signed, created, failed, , kept] = (await store.readAll()).map((e) => e.data as Record<string, unknown>);
  expect(signed).toMatchObject({ key: "[erased]", fileName: "[erased]", userId: 7 });
  expect(created).toMatchObject({ name: "[erased]", file: "[erased]", path: "[erased]", taskId: 1, userId: 7 });
  expect(failed).toMatchObject({ name: "[erased]", reason: "[erased]", attempt: 1 });
  expect(kept!.name).toBe("Kept name");
  expect(keys.made).toBe(1);

  expect(await encryptStoredEvents({ dataDir, eventStoreUrl: null }, keys)).toEqual({ read: 5, encrypted: 0, deletedTasks: 1, clear: 0 });
  await store.close();
});

test("EventStoreDB's log is refused: its events are immutable", async () => {
  const run = encryptStoredEvents({ dataDir: "/nonexistent", eventStoreUrl: "esdb://localhost:2113?tls=false" }, new MemoryDataKeys());
  await expect(run).rejects.toBeInstanceOf(EncryptEventsRefused);
});
