/**
 * `DELETE /api/user` through HTTP on the whole service in process (embedded adapters): an account with tasks, an API
 * key, a webhook, a folder, an avatar and notifications is erased; its credentials are refused, its files go, its email
 * is free, another account is untouched, and the read models still equal a replay of the log.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, type Json, type User } from "../support/tasks.ts";
import { blobKeys, expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { workersCaughtUp } from "../support/eventually.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allProjections } from "../../projections/index.ts";
import { userStream } from "../../src/accounts/events.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";

let app: TestApp;
let receiver: WebhookReceiver;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1" });
  receiver = startWebhookReceiver();
});
afterAll(async () => {
  await app.close();
  receiver.stop();
});

const png = Uint8Array.from(atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="), (c) => c.charCodeAt(0));
const privateWords = "the patient said something private";

type Account = User & { email: string; password: string; apiKey: string; tasks: number[] };

/** An account with two tasks (transcripts stored as blobs), an API key, a webhook, a folder, an avatar and a notification. */
async function fullAccount(): Promise<Account> {
  const user = await app.register({ name: "Erin Erasable" });
  await app.setPlan(user.id, "pro"); // API access, and a "Plan changed" notification
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "ci" } });
  const { key: apiKey } = await json<{ key: string }>(created);
  const segments = [{ start: 0, end: 1000, text: privateWords }];
  const tasks = [await createTask(app, user, { name: "Medical interview", segments }), await createTask(app, user, { name: "Legal call", segments })];
  expect((await app.request("POST", "/api/webhooks", { token: user.token, json: { url: receiver.url } })).status).toBe(201);
  expect((await app.request("POST", "/api/folders", { token: user.token, json: { name: "Clients" } })).status).toBe(201);
  const avatar = new FormData();
  avatar.append("avatar", new Blob([png], { type: "image/png" }), "me.png");
  expect((await app.request("PUT", "/api/user", { token: user.token, body: avatar })).status).toBe(200);
  return { ...user, apiKey, tasks };
}

const erase = (token: string, json?: unknown) => app.request("DELETE", "/api/user", { token, json });

describe("refused", () => {
  let account: Account;
  beforeAll(async () => {
    account = await fullAccount();
  });

  test("with an API key: 403 with a message, whatever the password", async () => {
    const response = await erase(account.apiKey, { password: account.password });
    expect(response.status).toBe(403);
    expect((await json<{ message: string }>(response)).message).toContain("API key cannot delete an account");
  });

  test("with a wrong password: 403; without one: 422 on password", async () => {
    const wrong = await erase(account.token, { password: "not my password" });
    expect(wrong.status).toBe(403);
    expect(await json(wrong)).toEqual({ message: "The password is incorrect." });
    const missing = await erase(account.token);
    expect(missing.status).toBe(422);
    expect(Object.keys((await json<{ errors: object }>(missing)).errors)).toEqual(["password"]);
  });

  test("hostile bodies are 422 in the API's error shape, and nothing is erased", async () => {
    for (const body of [{ password: "x".repeat(256) }, { password: 12345678 }, { password: ["a"] }, { password: null }, "password", [account.password]]) {
      const response = await erase(account.token, body);
      expect({ body, status: response.status }).toEqual({ body, status: 422 });
      expect(await json(response)).toMatchObject({ message: expect.any(String), errors: expect.any(Object) });
    }
    const proto = await app.request("DELETE", "/api/user", {
      token: account.token,
      headers: { "content-type": "application/json" },
      body: `{"__proto__": {"password": "${account.password}"}}`,
    });
    expect(proto.status).toBeGreaterThanOrEqual(400);
    expect(proto.status).toBeLessThan(500);
    const deep = await app.request("DELETE", "/api/user", {
      token: account.token,
      headers: { "content-type": "application/json" },
      body: `${'{"password":'.repeat(2000)}"x"${"}".repeat(2000)}`,
    });
    expect(deep.status).toBeGreaterThanOrEqual(400);
    expect(deep.status).toBeLessThan(500);
    const me = await app.request("GET", "/api/user", { token: account.token });
    expect(me.status).toBe(200);
  });
});

describe("erased with the right password", () => {
  let erased: Account;
  let other: User & { email: string };
  let otherTask: number;
  let otherBefore: Json;

  beforeAll(async () => {
    erased = await fullAccount();
    other = await app.register({ name: "Olive Other" });
    otherTask = await createTask(app, other, { name: "Kept", segments: [{ start: 0, end: 1000, text: "kept words" }] });
    await workersCaughtUp(app);
    otherBefore = await json(await app.request("GET", "/api/user", { token: other.token }));
    expect((await blobKeys(app, ["avatars/"])).some((key) => key.startsWith(`avatars/${erased.id}/`))).toBe(true);
    const response = await erase(erased.token, { password: erased.password });
    expect(response.status).toBe(204);
  });

  test("its token, API key and password are refused (401), and erasing again is 401", async () => {
    expect((await app.request("GET", "/api/user", { token: erased.token })).status).toBe(401);
    expect((await app.request("GET", "/api/tasks", { token: erased.apiKey })).status).toBe(401);
    expect((await app.request("POST", "/api/login", { json: { email: erased.email, password: erased.password } })).status).toBe(401);
    expect((await erase(erased.token, { password: erased.password })).status).toBe(401);
  });

  test("its tasks' blobs and its avatar are gone; nothing of its tasks is left in the read models", async () => {
    await workersCaughtUp(app);
    await expectNoOrphanBlobs(app);
    const left = await blobKeys(app, ["transcripts/", "avatars/"]);
    for (const taskId of erased.tasks) expect(left.filter((key) => key.includes(`task-${taskId}/`))).toEqual([]);
    expect(left.filter((key) => key.startsWith(`avatars/${erased.id}/`))).toEqual([]);
    const db = app.adapters.documents;
    for (const collection of ["tasks", "folders", "notifications", "credentials", "webhook_endpoints"])
      expect({ collection, count: await db.collection(collection).countDocuments({ userId: erased.id }) }).toEqual({ collection, count: 0 });
    expect(await db.collection("users").countDocuments({ id: erased.id })).toBe(0);
  });

  test("the log records AccountErased without personal data; the balance's facts stay, the profile reads erased", async () => {
    const events = await app.adapters.eventStore.readStream(userStream(erased.id));
    const last = events.findLast((event) => event.type === "AccountErased");
    expect(last?.data).toEqual({ by: "user", erasedAt: expect.any(String) });
    const grants = events.filter((event) => event.type === "AllowanceGranted").map((event) => (event.data as { seconds: number }).seconds);
    expect(grants).toEqual([1800, 72000]); // registration's free month, then Pro's: the amounts stay readable
    const text = JSON.stringify(events);
    expect(text).not.toContain(erased.email);
    expect(text).not.toContain("Erin Erasable");
    expect(events.find((event) => event.type === "UserRegistered")?.data).toMatchObject({ name: "[erased]", email: "[erased]" });
  });

  test("its email is free: registering with it gives a new account", async () => {
    const again = await app.register({ email: erased.email });
    expect(again.id).not.toBe(erased.id);
  });

  test("another account is untouched, and the read models equal a replay of the log", async () => {
    expect(await json(await app.request("GET", "/api/user", { token: other.token }))).toEqual(otherBefore);
    expect((await app.request("GET", `/api/tasks/${otherTask}`, { token: other.token })).status).toBe(200);
    await workersCaughtUp(app);
    // A replay through the service's own event store (the protected one, which reads the personal fields).
    const fresh = new EmbeddedDocumentStore(":memory:");
    try {
      await new ProjectionRunner(app.adapters.eventStore, fresh, allProjections, () => true, { transcripts: app.adapters.transcripts }).rebuild();
      for (const collection of ["users", "credentials", "folders", "notifications", "webhook_endpoints", "tasks"]) {
        const rows = async (db: DocumentStore) => db.collection(collection).find({}, { sort: { _id: 1 } });
        expect({ collection, rows: await rows(fresh) }).toEqual({ collection, rows: await rows(app.adapters.documents) });
      }
      expect(await fresh.collection("users").countDocuments({ id: erased.id })).toBe(0);
    } finally {
      await fresh.close();
    }
  });
});
