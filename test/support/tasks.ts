import { expect } from "bun:test";
import type { TestApp } from "./test-app.ts";
import { handle } from "../../src/core/command-handler.ts";
import { fold } from "../../src/core/decider.ts";
import { nextId } from "../../src/core/sequence.ts";
import { userStream } from "../../src/accounts/events.ts";
import { admissionDecider } from "../../src/tasks/admission.ts";
import { taskDecider, type TaskCommand } from "../../src/tasks/decider.ts";
import { taskStream, type Disk } from "../../src/tasks/events.ts";

/** Task helpers shared by the tasks, folders and share/history integration tests. */

export type User = { token: string; id: number };
export type Json = Record<string, unknown>;

const system = () => ({ correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "test" });

export async function json<T = Json>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** POSTs a task and expects 201; returns its id. */
export async function createTask(app: TestApp, user: User, body: Json = {}): Promise<number> {
  const response = await app.request("POST", "/api/tasks", {
    token: user.token,
    json: { disk: "objstore", name: "Interview", path: "uploads/a.mp3", ...body },
  });
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
  return (await json<{ id: number }>(response)).id;
}

export async function getTask(app: TestApp, user: User, id: number): Promise<Json> {
  const response = await app.request("GET", `/api/tasks/${id}`, { token: user.token });
  expect(response.status).toBe(200);
  return json(response);
}

/** Runs a system command on a task (what the transcription pipeline would do) and waits for the read models. */
export async function taskCommand(app: TestApp, taskId: number, command: TaskCommand): Promise<void> {
  const { position } = await handle(app.adapters.eventStore, taskStream(taskId), taskDecider, (state) => taskDecider.decide(command, state), {
    metadata: system(),
  });
  // Nothing to say (a worker got there first: the made-up media failed the task already): the read models are waited
  // for up to what the decision saw, which they may not show yet.
  const seen = position ?? (await app.adapters.eventStore.readStream(taskStream(taskId))).at(-1)?.position ?? null;
  if (seen !== null) await app.service.waitForProjections(seen);
}

export const failTask = (app: TestApp, taskId: number, reason = "test") => taskCommand(app, taskId, { type: "FailTask", reason });

/** Whether the user's admission stream still counts the task against the concurrent-task limit. */
export async function holdsSlot(app: TestApp, userId: number, taskId: number): Promise<boolean> {
  const state = fold(admissionDecider, (await app.adapters.eventStore.readStream(userStream(userId))) as never);
  return [...state.inFlight.values()].some((slot) => slot.taskId === taskId);
}

/** The slot worker frees a slot after the fact (it reacts to TaskFinished/TaskFailed on the bus). */
export async function waitForSlotFree(app: TestApp, userId: number, taskId: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await holdsSlot(app, userId, taskId)) {
    if (Date.now() > deadline) throw new Error(`task ${taskId} still holds a slot after ${timeoutMs} ms`);
    await Bun.sleep(10);
  }
}

/** Polls GET /api/tasks/{id} until the status is reached (within 10 s by default: the suite shares two cores with its workers). */
export async function waitForStatus(app: TestApp, user: User, id: number, status: string, timeoutMs = 10_000): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(app, user, id);
    if (task.status === status) return task;
    if (Date.now() > deadline) throw new Error(`task ${id} is ${String(task.status)}, not ${status}, after ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
}

/** Creates tasks straight on their streams (no admission, no HTTP): for lists longer than the concurrency limit. */
export async function seedTasks(app: TestApp, userId: number, names: string[], disk: Disk = "objstore"): Promise<number[]> {
  const ids: number[] = [];
  let last: number | null = null;
  for (const name of names) {
    const taskId = await nextId(app.adapters.eventStore, "task", "seed");
    const task = {
      taskId,
      userId,
      name,
      file: `${name}.mp3`,
      path: `uploads/${taskId}.mp3`,
      disk,
      size: 1000,
      duration: 60,
      cost: null,
      url: null,
      speakerDiarization: false,
      transcript: null,
    };
    const { position } = await handle(
      app.adapters.eventStore,
      taskStream(taskId),
      taskDecider,
      (state) => taskDecider.decide({ type: "CreateTask", task, now: new Date().toISOString() }, state),
      { metadata: system() },
    );
    last = position ?? last;
    ids.push(taskId);
  }
  if (last !== null) await app.service.waitForProjections(last);
  return ids;
}

export async function createFolder(app: TestApp, user: User, name: string): Promise<{ id: number; name: string }> {
  const response = await app.request("POST", "/api/folders", { token: user.token, json: { name } });
  if (response.status !== 201) throw new Error(`folder failed: ${response.status} ${await response.text()}`);
  return json(response);
}

export async function expectValidation(response: Response, field: string): Promise<Json> {
  const body = await json<{ message: string; errors: Record<string, string[]> }>(response);
  expect(response.status).toBe(422);
  expect(typeof body.message).toBe("string");
  expect(Object.keys(body.errors)).toContain(field);
  return body;
}

export const segment = (start: number, end: number, text: string, extra: Json = {}) => ({ start, end, text, ...extra });
