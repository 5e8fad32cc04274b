import { expect, test } from "bun:test";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { byUser, type NewEvent, type Recorded } from "../../src/core/event.ts";
import type { Worker } from "../../src/core/worker.ts";
import type { BusMessage } from "../../src/bus/port.ts";
import type { TaskEvent } from "../../src/tasks/events.ts";
import { protectEvents } from "../../src/erasure/protected-event-store.ts";
import { cleanupsBeforeErasure, taskErasureWorker } from "../../src/erasure/task-erasure-worker.ts";
import { MemoryDataKeys } from "./memory-data-keys.ts";
import { decryptedFieldsOf } from "../../src/erasure/decrypted-fields.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";

const upload = "0123456789abcdef0123456789abcdef";
const path = `uploads/7/${upload}/private-interview.mp3`;

const event = (type: string, data: Record<string, unknown>): NewEvent => ({ id: crypto.randomUUID(), type, data, metadata: byUser(7, "c") });

test("a deleted task's files are removed while its path is readable, then its key and its upload's are destroyed", async () => {
  const keys = new MemoryDataKeys();
  const store = protectEvents(new SqliteEventStore(":memory:"), keys);
  await store.append("upload-" + upload, [event("UploadSigned", { userId: 7, uploadId: upload, key: path, fileName: "private-interview.mp3" })], {
    expectedRevision: "no_stream",
  });
  const created = { taskId: 1, userId: 7, name: "Private interview", file: "private-interview.mp3", path, disk: "objstore", url: null };
  await store.append("task-1", [event("TaskCreated", created), event("TaskDeleted", { taskId: 1, userId: 7, wasInFlight: false, attempt: 1 })], {
    expectedRevision: "no_stream",
  });
  // The other TaskDeleted workers, as the process runs them: each records the media path it reads from the stream.
  const pathsSeen: Record<string, unknown> = {};
  const cleanup = (name: string): Worker => ({
    name,
    subject: "scribe.task.TaskDeleted",
    async handle() {
      pathsSeen[name] = (await store.readStream("task-1"))[0]!.data;
    },
  });
  const workers = new Map<string, Worker>(cleanupsBeforeErasure.map((name) => [name, cleanup(name)]));
  const documents = new EmbeddedDocumentStore(":memory:");
  const worker = taskErasureWorker({ store, keys, documents }, { workerNamed: (name) => workers.get(name) });
  const [, deleted] = await store.readStream("task-1");
  const handled = () => worker.handle(deleted as Recorded<Extract<TaskEvent, { type: "TaskDeleted" }>>, {} as BusMessage);
  expect(decryptedFieldsOf(keys).scopes()).toContain("task-1");
  await handled();
  // Its plaintext, decrypted while the cleanups read the stream, left memory with the keys.
  expect(decryptedFieldsOf(keys).scopes()).toEqual([]);

  expect(Object.keys(pathsSeen).sort()).toEqual([...cleanupsBeforeErasure].sort());
  for (const seen of Object.values(pathsSeen)) expect(seen).toMatchObject({ path });
  expect(await keys.find("task-1")).toBe("erased");
  expect(await keys.find(`upload-${upload}`)).toBe("erased");
  expect((await store.readStream("task-1"))[0]!.data).toMatchObject({ name: "[erased]", path: "[erased]", file: "[erased]", disk: "objstore" });
  expect((await store.readStream(`upload-${upload}`))[0]!.data).toMatchObject({ fileName: "[erased]", key: "[erased]", userId: 7 });
  // Redelivered: nothing to do, no error.
  await handled();
});
