import { expect, test } from "bun:test";
import { scopeOfEvent, uploadOfPath } from "../../src/erasure/key-scopes.ts";
import { personalFieldsByType } from "../../src/erasure/personal-fields.ts";
import { eventStreams } from "../../src/event-catalogue.ts";

/** Which data key protects which stream's personal fields (src/erasure/key-scopes.ts). */

const upload = "0123456789abcdef0123456789abcdef";

test("each stream's events map to their owner's scope; a stream naming no owner stays clear", () => {
  expect(scopeOfEvent("task-42", { userId: 7, taskId: 42 })).toEqual({ scope: "task-42", accountId: 7 });
  // Events stored before every task event named its owner: the owner found on the stream's TaskCreated.
  expect(scopeOfEvent("task-42", { name: "old" }, 7)).toEqual({ scope: "task-42", accountId: 7 });
  expect(scopeOfEvent("task-42", { name: "old" })).toBeNull();
  expect(scopeOfEvent("user-7", { name: "Ana" })).toEqual({ scope: "account-7", accountId: 7 });
  expect(scopeOfEvent(`upload-${upload}`, { userId: 7, fileName: "a.mp3" })).toEqual({ scope: `upload-${upload}`, accountId: 7 });
  expect(scopeOfEvent("webhooks-7", { userId: 7, url: "https://example.org" })).toEqual({ scope: "account-7", accountId: 7 });
  expect(scopeOfEvent("deadletter-00ff", { task: { taskId: 3, userId: 7, name: "x" } })).toEqual({ scope: "task-3", accountId: 7 });
  expect(scopeOfEvent("deadletter-00ff", { task: null })).toBeNull();
  // A dead letter about an account's own stream is the account's; about another stream, it names no owner.
  expect(scopeOfEvent("deadletter-00ff", { task: null, stream: "user-7" })).toEqual({ scope: "account-7", accountId: 7 });
  for (const stream of ["webhookmessage-m", "user-", "user-x", "email-ab", 7])
    expect({ stream, scope: scopeOfEvent("deadletter-00ff", { task: null, stream }) }).toEqual({ stream, scope: null });
  for (const stream of ["email-ab", "identity-cd", "sequence-task", "tokens-lifetime", "task-", "task-abc", "user-0", "__proto__-1"])
    expect({ stream, scope: scopeOfEvent(stream, { userId: 7 }) }).toEqual({ stream, scope: null });
});

test("a webhook message goes with the task its payload shows, unless it is the task's deletion; bad payloads are the account's", () => {
  const message = (eventType: string, payload: string) => scopeOfEvent("webhookmessage-m", { userId: 7, eventType, payload });
  expect(message("task.finished", JSON.stringify({ data: { task: { id: 9 } } }))).toEqual({ scope: "task-9", accountId: 7 });
  expect(message("task.deleted", JSON.stringify({ data: { task: { id: 9 } } }))).toEqual({ scope: "account-7", accountId: 7 });
  for (const payload of ["not json", "null", "[]", '{"data":{"task":{"id":"9"}}}', '{"__proto__":{"task":{"id":9}}}', "{".repeat(10_000)])
    expect(message("task.finished", payload)).toEqual({ scope: "account-7", accountId: 7 });
});

test("an upload is named by its task's path only when the path is an upload's", () => {
  expect(uploadOfPath(`uploads/7/${upload}/call.mp3`)).toBe(upload);
  for (const path of ["media/7/1-abc/call.mp3", "uploads/7/short/call.mp3", "https://example.org/call.mp3", "[erased]"]) expect(uploadOfPath(path)).toBeNull();
});

test("every event type with personal fields is a stored event's (the catalogue documents them as x-personal)", () => {
  const stored = new Set(Object.values(eventStreams).flatMap((stream) => stream.types as readonly string[]));
  for (const type of Object.keys(personalFieldsByType())) expect({ type, stored: stored.has(type) }).toEqual({ type, stored: true });
});
