/**
 * Webhooks against the started service (`bun src/main.ts`) with a short retry schedule (3 s, then 1 s,
 * then given up): a retry survives a restart of the service between the failure and the retry, and an
 * endpoint that keeps failing is disabled and its owner notified. Deliveries are verified with the
 * standardwebhooks package.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { startWebhookReceiver, verified, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

const dataDir = mkdtempSync(join(tmpdir(), "scribe-webhooks-"));
const env = { WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1", WEBHOOK_RETRY_SCHEDULE_SECONDS: "3,1", ...manyRequestsPerToken };
let service: RunningService;
let flaky: WebhookReceiver;
let broken: WebhookReceiver;

async function call(token: string | null, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(`${service.url}${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  return { status: response.status, body: await response.json().catch(() => null) };
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 1000)}`);
    await Bun.sleep(50);
  }
}

beforeAll(async () => {
  flaky = startWebhookReceiver("/flaky");
  broken = startWebhookReceiver("/broken");
  service = await startServiceProcess(env, dataDir);
});
afterAll(async () => {
  await service?.stop();
  flaky?.stop();
  broken?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

test("a failed delivery is retried after a restart, and an endpoint that keeps failing is disabled with a notification", async () => {
  const password = "correct horse battery";
  const registered = await call(null, "POST", "/api/register", {
    name: "Hook",
    email: `hook-${crypto.randomUUID()}@example.com`,
    password,
    password_confirmation: password,
  });
  const token = registered.body.token as string;
  flaky.answer([500]);
  broken.answer([], 500);
  const flakyEndpoint = (await call(token, "POST", "/api/webhooks", { url: flaky.url, events: ["task.finished"] })).body;
  const brokenEndpoint = (await call(token, "POST", "/api/webhooks", { url: broken.url, events: ["task.finished"] })).body;
  expect(flakyEndpoint.secret).toStartWith("whsec_");

  const task = await call(token, "POST", "/api/tasks", {
    disk: "objstore",
    name: "Survives",
    path: "a.mp3",
    segments: [{ start: 0, end: 1000, text: "restart" }],
  });
  expect(task.status).toBe(201);
  const first = await flaky.next();
  expect(verified(flakyEndpoint.secret, first).data.task).toMatchObject({ id: task.body.id, status: "finished" });
  // The failure is in the log (the deliveries list shows it) before the service goes down.
  await eventually(
    "the failed attempt",
    async () => (await call(token, "GET", `/api/webhooks/${flakyEndpoint.id}/deliveries`)).body as any[],
    (list) => list.length === 1 && list[0].status_code === 500,
  );
  expect(await service.stop()).toBe(0);
  const receivedWhileDown = flaky.received.length;
  service = await startServiceProcess(env, dataDir);

  const retry = await flaky.next(undefined, 20_000, receivedWhileDown);
  expect(retry.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
  expect(retry.headers["webhook-timestamp"]).not.toBe(undefined);
  expect(verified(flakyEndpoint.secret, retry).data.task.id).toBe(task.body.id);
  const attempts = await eventually(
    "the retry's success",
    async () => (await call(token, "GET", `/api/webhooks/${flakyEndpoint.id}/deliveries`)).body as any[],
    (list) => list.length === 2,
  );
  expect(attempts.map((a) => [a.attempt, a.status_code, a.succeeded])).toEqual([
    [2, 200, true],
    [1, 500, false],
  ]);

  // The broken receiver got the first attempt and both retries (3 in all), then its endpoint was disabled.
  const endpoints = await eventually(
    "the broken endpoint disabled",
    async () => (await call(token, "GET", "/api/webhooks")).body as any[],
    (list) => list.find((e) => e.id === brokenEndpoint.id)?.status === "disabled",
  );
  expect(endpoints.find((e) => e.id === brokenEndpoint.id).disabled_reason).toContain("could not be delivered in 3 attempts");
  expect(endpoints.find((e) => e.id === flakyEndpoint.id).status).toBe("enabled");
  expect(new Set(broken.received.map((r) => r.headers["webhook-id"])).size).toBe(1);
  for (const r of broken.received) verified(brokenEndpoint.secret, r);
  const notifications = await eventually(
    "the notification",
    async () => (await call(token, "GET", "/api/notifications")).body as any[],
    (list) => list.some((n) => n.title === "Webhook disabled"),
  );
  expect(notifications.find((n) => n.title === "Webhook disabled").message).toContain(broken.url);
  const brokenAttempts = (await call(token, "GET", `/api/webhooks/${brokenEndpoint.id}/deliveries`)).body as any[];
  expect(brokenAttempts.map((a) => [a.attempt, a.status_code, a.next_attempt_at === null])).toEqual([
    [3, 500, true],
    [2, 500, false],
    [1, 500, false],
  ]);

  // A disabled endpoint gets no new messages.
  const before = broken.received.length;
  const second = await call(token, "POST", "/api/tasks", { disk: "objstore", name: "After", path: "b.mp3", segments: [{ start: 0, end: 1000, text: "x" }] });
  await flaky.next((r) => JSON.parse(r.body).data.task.id === second.body.id);
  await Bun.sleep(500);
  expect(broken.received.length).toBe(before);

  // Its receiver fixed, the owner turns it on again: new messages reach it, signed with the same secret.
  broken.answer([], 200);
  const enabled = await call(token, "POST", `/api/webhooks/${brokenEndpoint.id}/enable`);
  expect(enabled.status).toBe(200);
  expect(enabled.body).toMatchObject({ id: brokenEndpoint.id, url: broken.url, status: "enabled", disabled_reason: null });
  expect((await call(token, "GET", "/api/webhooks")).body.find((e: { id: string }) => e.id === brokenEndpoint.id).status).toBe("enabled");
  const third = await call(token, "POST", "/api/tasks", { disk: "objstore", name: "Again", path: "c.mp3", segments: [{ start: 0, end: 1000, text: "y" }] });
  const arrived = await broken.next((r) => JSON.parse(r.body).data.task.id === third.body.id, 20_000, before);
  expect(verified(brokenEndpoint.secret, arrived).data.task).toMatchObject({ id: third.body.id, status: "finished" });
  // Asking again answers it as it is.
  expect((await call(token, "POST", `/api/webhooks/${brokenEndpoint.id}/enable`)).body.status).toBe("enabled");
}, 90_000);
