import type { EventStore } from "../../src/core/event-store.ts";
import type { NewEvent } from "../../src/core/event.ts";
import { nextId } from "../../src/core/sequence.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import { taskDecider } from "../../src/tasks/decider.ts";
import { taskStream, type TaskEvent } from "../../src/tasks/events.ts";
import { newAccessToken } from "../../src/accounts/secrets.ts";

const metadata = () => ({ correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "seed" });
const stored = (events: readonly { type: string; data: unknown }[]): NewEvent[] =>
  events.map((event) => ({ id: crypto.randomUUID(), type: event.type, data: event.data, metadata: metadata() }) as NewEvent);

/** Events per seeded task: it is created, then renamed this many times less one. */
const perTask = 10;

/** An account registered straight on its stream, with a bearer token for a client: its id, token and the events it took. */
async function account(store: EventStore, name: string, now: string): Promise<{ userId: number; token: string; events: number; position: number }> {
  const userId = await nextId(store, "user", "seed");
  const { tokenId, token, tokenHash } = newAccessToken();
  const registered = userDecider.decide(
    {
      type: "RegisterUser",
      userId,
      name,
      email: `seeded-${userId}@example.com`,
      passwordHash: null,
      identity: null,
      credential: { kind: "token", tokenId, tokenHash },
      method: "registration",
      now,
    },
    userDecider.initialState(),
  );
  const { position } = await store.append(userStream(userId), stored(registered), { expectedRevision: "no_stream" });
  return { userId, token, events: 1 + registered.length, position };
}

/**
 * About `count` events of this application appended straight through the event store port, a task's events in one
 * append: one account's tasks, created and renamed (pending tasks no worker will see: the relay's checkpoint is put
 * past them), and `clients` more accounts with nothing yet, whose tokens are returned for a load to use. Ids come from
 * the sequences as the service takes them, so its own ids never collide. Returns the log's last position and the
 * seconds it took.
 */
export async function appendManyEvents(
  store: EventStore,
  count: number,
  clients = 0,
): Promise<{ position: number; events: number; seconds: number; tokens: string[] }> {
  const started = performance.now();
  const now = new Date().toISOString();
  const owner = await account(store, "Seeded", now);
  const { userId } = owner;
  let { position, events } = owner;
  const tasks = Math.max(1, Math.floor((count - events) / (perTask + 1)));
  // One append reserves every task id (nextId's stream: an event per id).
  const reserved = await store.append("sequence-task", stored(Array.from({ length: tasks }, () => ({ type: "IdReserved", data: {} }))), {
    expectedRevision: "any",
  });
  events += tasks;
  const first = reserved.nextRevision + 2 - tasks;
  for (let i = 0; i < tasks; i++) {
    const taskId = first + i;
    const task = {
      taskId,
      userId,
      name: `Seeded ${i}`,
      file: `seeded-${i}.mp3`,
      path: `uploads/seeded-${i}.mp3`,
      disk: "objstore" as const,
      size: 1000,
      duration: 60,
      cost: null,
      url: null,
      speakerDiarization: false,
      transcript: null,
    };
    const created: { type: string; data: unknown }[] = taskDecider.decide({ type: "CreateTask", task, now }, taskDecider.initialState());
    for (let r = 1; r < perTask; r++) {
      const renamed: Extract<TaskEvent, { type: "TaskRenamed" }> = { type: "TaskRenamed", data: { userId, taskId, name: `Seeded ${i}, take ${r}` } };
      created.push(renamed);
    }
    ({ position } = await store.append(taskStream(taskId), stored(created), { expectedRevision: "no_stream" }));
    events += created.length;
  }
  const tokens: string[] = [];
  for (let i = 0; i < clients; i++) {
    const client = await account(store, `Client ${i + 1}`, now);
    ({ position } = client);
    events += client.events;
    tokens.push(client.token);
  }
  return { position, events, seconds: (performance.now() - started) / 1000, tokens };
}
