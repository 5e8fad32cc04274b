import { expect, test } from "bun:test";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { byUser, type NewEvent } from "../../src/core/event.ts";
import { protectEvents } from "../../src/erasure/protected-event-store.ts";
import { UnscopedFields } from "../../src/erasure/unscoped-fields.ts";
import { personalFieldsByType } from "../../src/erasure/personal-fields.ts";
import { isEncryptedField } from "../../src/erasure/field-cipher.ts";
import { eventStreams } from "../../src/event-catalogue.ts";
import { MemoryDataKeys } from "./memory-data-keys.ts";

/**
 * Every personal field the registry names gets a data key in normal use: an event as the service stores it, on its
 * stream, is stored with each of them encrypted, and nothing is left in the clear for want of a scope.
 */

const upload = "0123456789abcdef0123456789abcdef";

/** A stream of each category, and what the service's events on it carry that names their owner. */
const onStream: Record<string, { stream: string; data: Record<string, unknown> }> = {
  task: { stream: "task-3", data: { userId: 7, taskId: 3 } },
  user: { stream: "user-7", data: {} },
  upload: { stream: `upload-${upload}`, data: { userId: 7, uploadId: upload } },
  webhooks: { stream: "webhooks-7", data: { userId: 7, endpointId: "e" } },
  webhookmessage: { stream: "webhookmessage-m", data: { userId: 7, endpointId: "e", messageId: "m", eventType: "task.finished" } },
  deadletter: { stream: "deadletter-00ff", data: { stream: "task-3", task: { taskId: 3, userId: 7 } } },
};

const categoryOf = (type: string) => Object.entries(eventStreams).find(([, stream]) => (stream.types as readonly string[]).includes(type))?.[0];

/** `data` with a value at `path`, the objects on the way made where absent. */
function withValue(data: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split(".");
  if (rest.length === 0) return { ...data, [head!]: value };
  const inner = data[head!];
  const object = inner !== null && typeof inner === "object" ? (inner as Record<string, unknown>) : {};
  return { ...data, [head!]: withValue(object, rest.join("."), value) };
}

test("every registered personal field of every event type is stored encrypted, none left clear for want of a scope", async () => {
  const warned: unknown[] = [];
  const unscoped = new UnscopedFields((fields) => warned.push(fields));
  const raw = new SqliteEventStore(":memory:");
  const store = protectEvents(raw, new MemoryDataKeys(), { unscoped });
  const expected: { type: string; paths: readonly string[]; data: Record<string, unknown> }[] = [];
  for (const [type, paths] of Object.entries(personalFieldsByType())) {
    const category = categoryOf(type);
    expect({ type, category: category !== undefined && Object.hasOwn(onStream, category) }).toEqual({ type, category: true });
    const { stream, data } = onStream[category!]!;
    let filled = data;
    for (const path of paths) filled = withValue(filled, path, `private ${path} of ${type}`);
    const event: NewEvent = { id: crypto.randomUUID(), type, data: filled, metadata: byUser(7, "c") };
    await store.append(stream, [event], { expectedRevision: "any" });
    expected.push({ type, paths, data: filled });
  }
  const stored = await raw.readAll();
  for (const [i, { type, paths }] of expected.entries()) {
    for (const path of paths) {
      const value = path.split(".").reduce<unknown>((at, part) => (at as Record<string, unknown>)[part], stored[i]!.data);
      expect({ type, path, encrypted: isEncryptedField(value) }).toEqual({ type, path, encrypted: true });
    }
  }
  expect(JSON.stringify(stored)).not.toContain("private ");
  expect(unscoped.total()).toBe(0);
  expect(warned).toEqual([]);
  // And they read back as written.
  expect((await store.readAll()).map((event) => event.data)).toEqual(expected.map(({ data }) => data));
});

test("an event whose stream names no owner is stored clear, never silently: counted, and warned of once per type", async () => {
  const warned: Record<string, unknown>[] = [];
  const unscoped = new UnscopedFields((fields) => warned.push(fields));
  const raw = new SqliteEventStore(":memory:");
  const store = protectEvents(raw, new MemoryDataKeys(), { unscoped });
  const deadLetter = (n: number): NewEvent => ({
    id: crypto.randomUUID(),
    type: "MessageDeadLettered",
    data: { stream: "webhookmessage-m", error: `could not reach hook${n}.example`, task: null },
    metadata: byUser(7, "c"),
  });
  await store.append("deadletter-01", [deadLetter(1)], { expectedRevision: "any" });
  await store.append("deadletter-02", [deadLetter(2)], { expectedRevision: "any" });
  // A dead letter about an account's own stream is the account's.
  await store.append("deadletter-03", [{ ...deadLetter(3), data: { stream: "user-7", error: "hook3.example", task: null } }], { expectedRevision: "any" });
  const [first, , third] = await raw.readAll();
  expect((first!.data as { error: string }).error).toBe("could not reach hook1.example");
  expect((third!.data as { error: string }).error).toStartWith("enc:v1:account-7:");
  expect(unscoped.byType()).toEqual({ MessageDeadLettered: 2 });
  expect(warned).toEqual([{ eventType: "MessageDeadLettered", stream: "deadletter-01" }]);
});
