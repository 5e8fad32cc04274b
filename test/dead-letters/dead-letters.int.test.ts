/**
 * A worker's handler that fails on every delivery while its dependencies answer: the message is set aside as a
 * dead letter, its task's owner is told, and the operator's retry (through the service the CLI uses) runs it again
 * on the in-process bus inside the app, once the cause is fixed; a drop sets it aside for good.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { createTask, getTask, json, type User } from "../support/tasks.ts";
import { until } from "../support/eventually.ts";
import { bySystem } from "../../src/core/event.ts";
import type { EventStore } from "../../src/core/event-store.ts";
import { ConflictError, NotFoundError } from "../../src/core/errors.ts";
import { DeadLetters, type DeadLetterDocument } from "../../src/dead-letters/index.ts";
import { deadLetterIdOf } from "../../src/dead-letters/events.ts";

/**
 * The cause: while `broken`, the supplied-transcripts worker's command on a task's stream is refused (as a bug or a
 * rule it trips on would), while the store answers everything else, so the failure is the message's, not an outage.
 */
let broken = true;
function breakable(inner: EventStore): EventStore {
  return {
    ...inner,
    append: async (stream, events, options) => {
      if (broken && stream.startsWith("task-") && events.some((e) => e.metadata.system === "supplied-transcripts"))
        throw new Error("FinishTask refused (injected)");
      return inner.append(stream, events, options);
    },
    readStream: (...args) => inner.readStream(...args),
    readAll: (...args) => inner.readAll(...args),
    subscribe: (...args) => inner.subscribe(...args),
    close: () => inner.close(),
  };
}

let app: TestApp;
let deadLetters: DeadLetters;
let user: User;
const operator = () => bySystem("operator", crypto.randomUUID());
const segments = [{ start: 0, end: 4000, text: "The garden needs water every morning." }];

const letterOf = async (taskId: number): Promise<DeadLetterDocument | null> =>
  (await app.adapters.documents.collection<DeadLetterDocument>("dead_letters").findOne({ taskId })) ?? null;
const openFor = async (taskId: number) => (await deadLetters.open()).find((letter) => letter.taskId === taskId) ?? null;

beforeAll(async () => {
  // Every failed delivery is a warn line, each dead letter an error line: only the latter are shown.
  app = await startTestApp({ LOG_LEVEL: "error" }, { adapters: (opened) => ({ ...opened, eventStore: breakable(opened.eventStore) }) });
  deadLetters = new DeadLetters(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections);
  user = await app.register();
});
afterAll(async () => {
  await app.close();
});

describe("dead letters on the embedded profile", () => {
  test("set aside after its deliveries, its owner told; a failed retry opens it again; retried once fixed it finishes; a drop is for good", async () => {
    const kept = await createTask(app, user, { name: "Garden", segments });
    const given = await createTask(app, user, { name: "Orchard", segments });

    // Five deliveries with their back-off (about 3 s), then each is listed: the worker, the event, why.
    const letter = await until("the first dead letter", () => openFor(kept), 15_000);
    expect(letter).toMatchObject({
      worker: "supplied-transcripts",
      eventType: "TaskCreated",
      stream: `task-${kept}`,
      taskId: kept,
      deliveries: 5,
      occurrences: 1,
      status: "open",
      error: "FinishTask refused (injected)",
    });
    const created = (await app.adapters.eventStore.readStream(`task-${kept}`))[0]!;
    expect(letter.id).toBe(deadLetterIdOf("supplied-transcripts", created.id));
    await until("the second dead letter", () => openFor(given), 15_000);
    expect((await getTask(app, user, kept)).status).toBe("pending");
    expect(await (await app.request("GET", "/metrics")).text()).toContain("\nscribe_dead_letters_open 2\n");

    // Its owner is told, about that task.
    const notifications = await until("the notifications", async () => {
      const list = await json<{ title: string; message: string; task_id: number | null }[]>(
        await app.request("GET", "/api/notifications", { token: user.token }),
      );
      return list.filter((n) => n.title === "Task problem").length === 2 && list;
    });
    expect(notifications.find((n) => n.task_id === kept)?.message).toBe(
      'Processing of task "Garden" hit a problem and was set aside for the operator, who can run it again once it is fixed.',
    );

    // Retried before the cause is fixed: after the redrive's own deliveries it is open again, for the same worker.
    await deadLetters.retry(letter.id, operator());
    expect(await openFor(kept)).toBeNull();
    const again = await until(
      "the dead letter open again",
      async () => {
        const current = await letterOf(kept);
        return current?.status === "open" && current.occurrences === 2 && current;
      },
      15_000,
    );
    expect(again).toMatchObject({ id: letter.id, worker: "supplied-transcripts", eventType: "TaskCreated" });

    // Fixed, then retried: the task finishes and the dead letter is resolved. The owner was told only once.
    broken = false;
    await deadLetters.retry(letter.id, operator());
    await until("the task finished", async () => (await getTask(app, user, kept)).status === "finished", 10_000);
    await until("the dead letter resolved", async () => (await letterOf(kept))?.status === "resolved", 10_000);
    const after = await json<{ title: string }[]>(await app.request("GET", "/api/notifications", { token: user.token }));
    expect(after.filter((n) => n.title === "Task problem")).toHaveLength(2);

    // Dropped: no longer listed, never run; the operator cannot retry it any more.
    const other = (await openFor(given))!;
    await deadLetters.drop(other.id, operator());
    expect(await deadLetters.open()).toEqual([]);
    expect((await letterOf(given))?.status).toBe("dropped");
    expect(deadLetters.retry(other.id, operator())).rejects.toBeInstanceOf(ConflictError);
    expect(deadLetters.drop("0123456789abcdef", operator())).rejects.toBeInstanceOf(NotFoundError);
    expect(deadLetters.retry("not-an-id", operator())).rejects.toBeInstanceOf(NotFoundError);
    await Bun.sleep(300);
    expect((await getTask(app, user, given)).status).toBe("pending");
  }, 40_000);
});
