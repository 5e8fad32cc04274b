import { describe, expect, test } from "bun:test";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { byUser, type NewEvent, type RecordedEvent } from "../../src/core/event.ts";
import { protectEvents } from "../../src/erasure/protected-event-store.ts";
import { DecryptedFields, decryptedFieldsOf, forgetDecryptedFields } from "../../src/erasure/decrypted-fields.ts";
import { MemoryDataKeys } from "./memory-data-keys.ts";

const secretName = "Interview with Dr. Quirrel about the 7-ingredient cure";
const secretText = "my private diagnosis: hiccups of the heart";

function created(taskId: number, userId: number, name = secretName): NewEvent {
  return {
    id: crypto.randomUUID(),
    type: "TaskCreated",
    data: {
      taskId,
      userId,
      name,
      file: "quirrel.mp3",
      path: `uploads/${userId}/0123456789abcdef0123456789abcdef/quirrel.mp3`,
      disk: "objstore",
      size: 10,
      duration: 60,
      cost: 60,
      url: null,
      speakerDiarization: false,
      transcript: null,
      segments: [{ id: 0, start: 0, end: 1000, text: secretText, speaker: "Quirrel", tokens: null }],
      createdAt: "2026-01-01T00:00:00.000Z",
    },
    metadata: byUser(userId, crypto.randomUUID()),
  };
}

const renamed = (taskId: number, userId: number, name: string): NewEvent => ({
  id: crypto.randomUUID(),
  type: "TaskRenamed",
  data: { taskId, userId, name },
  metadata: byUser(userId, crypto.randomUUID()),
});

/** The log as stored, and the same log read through the decorator. */
function given() {
  const raw = new SqliteEventStore(":memory:");
  const keys = new MemoryDataKeys();
  const erased: { id: string; paths: readonly string[] }[] = [];
  const store = protectEvents(raw, keys, { onErased: (event, paths) => erased.push({ id: event.id, paths }) });
  return { raw, keys, store, erased };
}

const data = (event: RecordedEvent | undefined) => event?.data as Record<string, unknown>;

describe("the protected event store", () => {
  test("stores a task's personal fields encrypted: no plaintext in the stored form", async () => {
    const { raw, store } = given();
    await store.append("task-1", [created(1, 7)], { expectedRevision: "no_stream" });
    const [stored] = await raw.readStream("task-1");
    const json = JSON.stringify(stored);
    expect(json).not.toContain("Quirrel");
    expect(json).not.toContain("hiccups");
    expect(data(stored).name).toStartWith("enc:v1:task-1:");
    // The facts stay readable for analysts.
    expect(data(stored)).toMatchObject({ taskId: 1, userId: 7, duration: 60, cost: 60, disk: "objstore", url: null });
  });

  test("reads them back in plaintext, by stream, from the whole log and through a subscription", async () => {
    const { store } = given();
    const event = created(1, 7);
    await store.append("task-1", [event, renamed(1, 7, "Renamed privately")], { expectedRevision: "no_stream" });
    expect(data((await store.readStream("task-1"))[0])).toEqual(event.data as Record<string, unknown>);
    expect(data((await store.readAll())[1]).name).toBe("Renamed privately");
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe({}, (e) => void seen.push(e));
    while (seen.length < 2) await Bun.sleep(5);
    await subscription.stop();
    expect(data(seen[0]).segments).toEqual([{ id: 0, start: 0, end: 1000, text: secretText, speaker: "Quirrel", tokens: null }]);
  });

  test("a destroyed key reads as [erased] (arrays as []), never ciphertext or an error; other tasks are unaffected", async () => {
    const { keys, store, erased } = given();
    const first = created(1, 7);
    await store.append("task-1", [first], { expectedRevision: "no_stream" });
    await store.append("task-2", [created(2, 7, "Another task, kept")], { expectedRevision: "no_stream" });
    await keys.erase("task-1");
    const [read] = await store.readStream("task-1");
    expect(data(read)).toMatchObject({ name: "[erased]", file: "[erased]", path: "[erased]", segments: [], url: null, duration: 60 });
    expect(erased).toEqual([{ id: first.id, paths: ["name", "file", "path", "segments"] }]);
    expect(data((await store.readStream("task-2"))[0]).name).toBe("Another task, kept");
  });

  test("an event appended after its scope was erased stores the erased value, and no key is made again", async () => {
    const { raw, keys, store } = given();
    await store.append("task-1", [created(1, 7)], { expectedRevision: "no_stream" });
    await keys.erase("task-1");
    await store.append("task-1", [renamed(1, 7, "Late private name")], { expectedRevision: 0 });
    expect(data((await raw.readStream("task-1"))[1]).name).toBe("[erased]");
    expect(keys.made).toBe(1);
  });

  test("events stored in the clear before encryption read as they are", async () => {
    const { raw, store } = given();
    const old = created(1, 7);
    await raw.append("task-1", [old], { expectedRevision: "no_stream" });
    expect(data((await store.readStream("task-1"))[0])).toEqual(old.data as Record<string, unknown>);
  });

  test("an event type with no personal fields passes through untouched, and makes no key", async () => {
    const { raw, keys, store } = given();
    const deleted: NewEvent = {
      id: crypto.randomUUID(),
      type: "TaskDeleted",
      data: { taskId: 1, userId: 7, wasInFlight: false, attempt: 1 },
      metadata: byUser(7, "c"),
    };
    await store.append("task-1", [deleted], { expectedRevision: "no_stream" });
    expect(data((await raw.readStream("task-1"))[0])).toEqual(deleted.data as Record<string, unknown>);
    expect(keys.made).toBe(0);
  });

  test("an account's fields use the account's scope; nested fields (a folder's name on a task) are encrypted alone", async () => {
    const { raw, store } = given();
    const registered: NewEvent = {
      id: crypto.randomUUID(),
      type: "UserRegistered",
      data: { userId: 7, name: "Quirrel", email: "q@example.com", passwordHash: null, identity: null, registeredAt: "2026-01-01T00:00:00Z" },
      metadata: byUser(7, "c"),
    };
    const moved: NewEvent = {
      id: crypto.randomUUID(),
      type: "TaskMoved",
      data: { userId: 7, taskId: 1, folder: { id: 3, name: "Therapy" } },
      metadata: byUser(7, "c"),
    };
    await store.append("user-7", [registered], { expectedRevision: "no_stream" });
    await store.append("task-1", [moved], { expectedRevision: "no_stream" });
    const [user, task] = await raw.readAll();
    expect(data(user).email).toStartWith("enc:v1:account-7:");
    expect(data(user).identity).toBeNull();
    expect(data(task).folder).toMatchObject({ id: 3, name: expect.stringMatching(/^enc:v1:task-1:/) });
    expect(data((await store.readStream("task-1"))[0]).folder).toEqual({ id: 3, name: "Therapy" });
  });

  test("a webhook message's payload goes with the task it shows, a deletion's own (facts only) with the account", async () => {
    const { raw, keys, store } = given();
    const scheduled = (eventType: string, taskId: number): NewEvent => ({
      id: crypto.randomUUID(),
      type: "WebhookMessageScheduled",
      data: {
        userId: 7,
        endpointId: "e",
        messageId: "m",
        eventType,
        payload: JSON.stringify({ type: eventType, data: { task: { id: taskId, name: secretName } } }),
      },
      metadata: byUser(7, "c"),
    });
    await store.append("webhookmessage-1", [scheduled("task.finished", 1)], { expectedRevision: "no_stream" });
    await store.append("webhookmessage-2", [scheduled("task.deleted", 1)], { expectedRevision: "no_stream" });
    const [finished, deleted] = await raw.readAll();
    expect(data(finished).payload).toStartWith("enc:v1:task-1:");
    expect(data(deleted).payload).toStartWith("enc:v1:account-7:");
    await keys.erase("task-1");
    const [afterFinished, afterDeleted] = await store.readAll();
    expect(data(afterFinished).payload).toBe("[erased]");
    expect(data(afterDeleted).payload).toContain(secretName);
  });

  test("hostile names round-trip: one that looks encrypted, __proto__, control characters, a long one", async () => {
    const { raw, store } = given();
    const names = ["enc:v1:task-1:AAAAAAAAAAAAAAAA:BBBBBBBBBBBBBBBBBBBBBB", "__proto__", "tab\there\u0000nul \ud83d\ude00", "x".repeat(20_000)];
    await store.append("task-1", [created(1, 7), ...names.map((name) => renamed(1, 7, name))], { expectedRevision: "no_stream" });
    expect((await raw.readStream("task-1")).every((event) => (data(event).name as string).startsWith("enc:v1:task-1:"))).toBe(true);
    expect((await store.readStream("task-1")).slice(1).map((event) => data(event).name)).toEqual(names);
  });

  test("a field moved to another event or scope does not decrypt: it reads as erased", async () => {
    const { raw, store } = given();
    await store.append("task-1", [created(1, 7)], { expectedRevision: "no_stream" });
    const sealedName = data((await raw.readStream("task-1"))[0]).name;
    await raw.append("task-1", [renamed(1, 7, sealedName as string)], { expectedRevision: 0 });
    expect(data((await store.readStream("task-1"))[1]).name).toBe("[erased]");
  });
  test("an erased scope never reads plaintext from the cache, and its cached plaintext is dropped", async () => {
    const { keys, store } = given();
    await store.append("task-1", [created(1, 7)], { expectedRevision: "no_stream" });
    await store.append("task-2", [created(2, 8, "Other account's task")], { expectedRevision: "no_stream" });
    await store.readAll();
    const cache = decryptedFieldsOf(keys);
    expect(cache.scopes().sort()).toEqual(["task-1", "task-2"]);
    // Erased behind the reader's back: the next read answers erased, and drops what it had of the scope.
    await keys.erase("task-1");
    expect(data((await store.readStream("task-1"))[0]).name).toBe("[erased]");
    expect(cache.scopes()).toEqual(["task-2"]);
    // An account's erasure names no scopes: the sweep finds those whose keys are gone, without a read.
    await keys.eraseAccount(8);
    await forgetDecryptedFields(keys);
    expect(cache.scopes()).toEqual([]);
    expect(cache.count()).toBe(0);
    expect(data((await store.readStream("task-2"))[0]).name).toBe("[erased]");
  });
});

describe("the cache of decrypted fields", () => {
  test("bounded by the stored texts' length, least recently used first; forgetting a scope drops its fields only", () => {
    const cache = new DecryptedFields(1600);
    for (let i = 0; i < 20; i++) cache.set(`task-${i % 2}`, `stored-${i}`.padEnd(100, "x"), { i });
    expect(cache.count()).toBe(16);
    expect(cache.get("stored-0".padEnd(100, "x"))).toBeUndefined();
    expect(cache.get("stored-19".padEnd(100, "x"))).toEqual({ i: 19 });
    cache.forget("task-1");
    expect(cache.count()).toBe(8);
    expect(cache.scopes()).toEqual(["task-0"]);
    expect(cache.get("stored-18".padEnd(100, "x"))).toEqual({ i: 18 });
    // Entries evicted for the bound leave the scope's index too: forgetting it all leaves nothing behind.
    cache.forget("task-0");
    expect(cache.scopes()).toEqual([]);
    expect(cache.count()).toBe(0);
  });
});
