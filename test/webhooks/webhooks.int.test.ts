/**
 * Webhooks in process (embedded adapters, WEBHOOK_ALLOWED_NETWORKS=127.0.0.1, the default retry schedule) with a
 * Bun.serve receiver on loopback: every delivery is verified with the standardwebhooks package.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { startWebhookReceiver, typeOf, verified, type WebhookReceiver } from "../support/webhook-receiver.ts";
import { createTask, failTask, json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { workersCaughtUp } from "../support/eventually.ts";

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

type Created = { id: string; url: string; events: string[]; secret: string; status: string };

async function register(user: User, body: Record<string, unknown>): Promise<Created> {
  const response = await app.request("POST", "/api/webhooks", { token: user.token, json: body });
  if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
  return json<Created>(response);
}

const segments = [{ start: 0, end: 1000, text: "hello webhooks" }];
const forTask = (taskId: number, type: string) => (r: { body: string }) => {
  const payload = JSON.parse(r.body) as { type: string; data: { task: { id: number } } };
  return payload.type === type && payload.data.task.id === taskId;
};

describe("registering endpoints", () => {
  test("201 with a whsec_ secret shown once; the list shows the endpoint without it", async () => {
    const user = await app.register();
    const created = await register(user, { url: receiver.url, events: ["task.failed", "task.finished"] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), "base64").length).toBe(32);
    expect(created.events).toEqual(["task.finished", "task.failed"]);
    const listed = await app.request("GET", "/api/webhooks", { token: user.token });
    const list = await json<Record<string, unknown>[]>(listed);
    expect(list).toEqual([
      { id: created.id, url: receiver.url, events: ["task.finished", "task.failed"], status: "enabled", disabled_reason: null, created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(list)).not.toContain(created.secret.slice(6));
    // Absent or empty events: all four.
    expect((await register(user, { url: receiver.url })).events).toEqual(["task.finished", "task.failed", "task.deleted", "export.ready"]);
    expect((await register(user, { url: receiver.url, events: [] })).events).toHaveLength(4);
  });

  test("bad URLs and event types are 422 with errors keyed by field", async () => {
    const user = await app.register();
    const bad = [
      "http://10.0.0.1/hook",
      "http://192.168.1.20/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://[::ffff:10.0.0.1]/x",
      "http://[fd00::1]/x",
      "http://0.0.0.0/x",
      // Loopback outside WEBHOOK_ALLOWED_NETWORKS (127.0.0.1 only) stays refused.
      "http://127.0.0.2/hook",
      "http://[::1]/hook",
      "ftp://example.com/hook",
      "file:///etc/passwd",
      "javascript:alert(1)",
      "http://user:pass@127.0.0.1/hook",
      "https://user@example.com/hook",
      "not a url",
      "",
      `http://127.0.0.1/${"a".repeat(2100)}`,
      "http://nonexistent.invalid/hook",
    ];
    for (const url of bad) {
      const response = await app.request("POST", "/api/webhooks", { token: user.token, json: { url } });
      const body = await json<{ message: string; errors: Record<string, string[]> }>(response);
      expect({ url, status: response.status, field: Object.keys(body.errors ?? {}) }).toEqual({ url, status: 422, field: ["url"] });
    }
    for (const events of [["task.created"], ["task.finished", 3], "task.finished", [{ a: 1 }]]) {
      const response = await app.request("POST", "/api/webhooks", { token: user.token, json: { url: receiver.url, events } });
      expect(response.status).toBe(422);
      expect(Object.keys((await json<{ errors: Record<string, string[]> }>(response)).errors)[0]).toStartWith("events");
    }
    const hostile = [null, [], "x", { url: { $gt: "" } }, { url: [receiver.url] }, { url: 42 }, { events: ["task.failed"] }];
    for (const body of hostile) expect((await app.request("POST", "/api/webhooks", { token: user.token, json: body })).status).toBe(422);
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const nested = await app.request("POST", "/api/webhooks", { token: user.token, body: deep, headers: { "content-type": "application/json" } });
    expect(nested.status).toBeGreaterThanOrEqual(400);
    expect(nested.status).toBeLessThan(500);
    expect(await json<unknown[]>(await app.request("GET", "/api/webhooks", { token: user.token }))).toEqual([]);
  });

  test("at most 10 endpoints per account; deleting one makes room", async () => {
    const user = await app.register();
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await register(user, { url: `${receiver.url}?n=${i}` })).id);
    const eleventh = await app.request("POST", "/api/webhooks", { token: user.token, json: { url: receiver.url } });
    expect(eleventh.status).toBe(422);
    expect((await app.request("DELETE", `/api/webhooks/${ids[0]}`, { token: user.token })).status).toBe(200);
    expect((await app.request("POST", "/api/webhooks", { token: user.token, json: { url: receiver.url } })).status).toBe(201);
  });

  test("Idempotency-Key: a retry after a lost answer gets the first answer (the same id and secret), not a second endpoint", async () => {
    const user = await app.register();
    const send = () => app.request("POST", "/api/webhooks", { token: user.token, json: { url: receiver.url }, headers: { "idempotency-key": "hook-retry-1" } });
    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await first.text());
    expect(await json<unknown[]>(await app.request("GET", "/api/webhooks", { token: user.token }))).toHaveLength(1);
  });

  test("another account's endpoint is not found, exactly like a missing one", async () => {
    const owner = await app.register();
    const other = await app.register();
    const created = await register(owner, { url: receiver.url });
    const ghost = crypto.randomUUID();
    for (const [method, suffix] of [
      ["DELETE", ""],
      ["GET", "/deliveries"],
      ["POST", "/test"],
      ["POST", "/enable"],
    ] as const) {
      const theirs = await app.request(method, `/api/webhooks/${created.id}${suffix}`, { token: other.token });
      const missing = await app.request(method, `/api/webhooks/${ghost}${suffix}`, { token: other.token });
      expect(theirs.status).toBe(404);
      expect(await theirs.text()).toBe(await missing.text());
    }
    expect(await json<unknown[]>(await app.request("GET", "/api/webhooks", { token: other.token }))).toEqual([]);
    expect((await json<unknown[]>(await app.request("GET", "/api/webhooks", { token: owner.token }))).length).toBe(1);
  });
});

describe("delivering", () => {
  test("task.finished, task.failed and task.deleted reach the owner's subscribed endpoints, signed as Standard Webhooks says", async () => {
    const user = await app.register();
    const bystander = await app.register();
    const all = await register(user, { url: receiver.url });
    const onlyFailed = await register(user, { url: `${receiver.url}?only=failed`, events: ["task.failed"] });
    const bystanders = await register(bystander, { url: `${receiver.url}?bystander` });

    const finishedId = await createTask(app, user, { name: "Finished by webhook", segments });
    const finished = await receiver.next(forTask(finishedId, "task.finished"));
    const payload = verified(all.secret, finished);
    expect(payload.type).toBe("task.finished");
    expect(payload.data.task).toMatchObject({ id: finishedId, name: "Finished by webhook", status: "finished", failure_reason: null });
    expect(finished.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Math.abs(Number(finished.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    expect(finished.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => verified(onlyFailed.secret, finished)).toThrow();

    const failedId = await createTask(app, user, { name: "Doomed" });
    await failTask(app, failedId, "no speech found");
    // Two messages: one to each endpoint subscribed to task.failed, each signed with its own endpoint's secret.
    await receiver.next(() => receiver.received.filter(forTask(failedId, "task.failed")).length >= 2);
    const signedBy = receiver.received.filter(forTask(failedId, "task.failed")).map((r) => {
      try {
        return { by: "onlyFailed", task: verified(onlyFailed.secret, r).data.task };
      } catch {
        return { by: "all", task: verified(all.secret, r).data.task };
      }
    });
    expect(signedBy.map((s) => s.by).sort()).toEqual(["all", "onlyFailed"]);
    // The reason the task failed with: the test's, or the transcription worker's when it found the task's media missing
    // first (this app runs it, and the task names no real file). Either way the payload says what the task says.
    const { failure_reason } = await json<{ failure_reason: string }>(await app.request("GET", `/api/tasks/${failedId}`, { token: user.token }));
    expect(["no speech found", "media not found in storage"]).toContain(failure_reason);
    for (const { task } of signedBy) expect(task).toMatchObject({ id: failedId, status: "failed", failure_reason });

    expect((await app.request("DELETE", `/api/tasks/${finishedId}`, { token: user.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    const deletion = await receiver.next(forTask(finishedId, "task.deleted"));
    const deleted = verified(all.secret, deletion);
    // The facts only: nothing the deletion erases, since the message outlives the task (src/webhooks/payload.ts).
    expect(deleted.data.task).toMatchObject({ id: finishedId, status: "finished", deleted: true, attempts: 1 });
    for (const erased of ["name", "file", "folder", "failure_reason"]) expect(deleted.data.task).not.toHaveProperty(erased);
    expect(deletion.body).not.toContain("Finished by webhook");
    // Nor does the stored message read it back, from the log as every consumer reads it.
    const deletions = (await app.adapters.eventStore.readAll()).filter((e) => (e.data as { eventType?: unknown }).eventType === "task.deleted");
    const scheduled = deletions.filter((e) => e.type === "WebhookMessageScheduled");
    expect(scheduled.length).toBeGreaterThan(0);
    expect(JSON.stringify(scheduled)).not.toContain("Finished by webhook");

    // Nothing of this user's went to the bystander's endpoint.
    for (const r of receiver.received.filter((r) => r.body.includes(`"id":${finishedId},`) || r.body.includes(`"id":${failedId},`)))
      expect(() => verified(bystanders.secret, r)).toThrow();
  }, 30_000);

  test("export.ready when the worker has rendered a pdf or docx, with the format", async () => {
    const user = await app.register();
    const endpoint = await register(user, { url: receiver.url, events: ["export.ready"] });
    const taskId = await createTask(app, user, { name: "Exported", segments });
    const ready = verified(endpoint.secret, await receiver.next(forTask(taskId, "export.ready"), 30_000));
    expect(["pdf", "docx"]).toContain(ready.data.export.format);
    expect(ready.data.task.id).toBe(taskId);
    expect(receiver.received.some(forTask(taskId, "task.finished"))).toBe(false);
  }, 40_000);

  test("a 500 is retried within 10 s with the same webhook-id; the deliveries list shows the failed attempt, then the success", async () => {
    const user = await app.register();
    const path = `/flaky-${crypto.randomUUID()}`;
    const endpoint = await register(user, { url: receiver.url.replace("/hooks", path), events: ["task.finished"] });
    receiver.answer([500], 200, path);
    const from = receiver.received.length;
    const taskId = await createTask(app, user, { name: "Flaky", segments });
    const first = await receiver.next(forTask(taskId, "task.finished"), 15_000, from);
    const retry = await receiver.next((r) => r !== first && forTask(taskId, "task.finished")(r), 15_000, from);
    expect(retry.at - first.at).toBeLessThan(10_000);
    expect(retry.headers["webhook-id"]).toBe(first.headers["webhook-id"]);
    expect(verified(endpoint.secret, retry).data.task.id).toBe(taskId);
    let attempts: Record<string, any>[] = [];
    for (let i = 0; i < 200 && attempts.length < 2; i++) {
      attempts = await json(await app.request("GET", `/api/webhooks/${endpoint.id}/deliveries`, { token: user.token }));
      await Bun.sleep(20);
    }
    expect(attempts).toMatchObject([
      { message_id: first.headers["webhook-id"], type: "task.finished", attempt: 2, succeeded: true, status_code: 200, error: null, next_attempt_at: null },
      { message_id: first.headers["webhook-id"], type: "task.finished", attempt: 1, succeeded: false, status_code: 500, error: "the endpoint answered 500" },
    ]);
    expect(typeof attempts[1]!.duration_ms).toBe("number");
    expect(Date.parse(attempts[1]!.next_attempt_at) - Date.parse(attempts[1]!.attempted_at)).toBeLessThan(10_000);
  }, 30_000);

  test("POST /api/webhooks/{id}/test sends webhook.test now and answers with the outcome", async () => {
    const user = await app.register();
    const path = `/test-${crypto.randomUUID()}`;
    const endpoint = await register(user, { url: receiver.url.replace("/hooks", path) });
    const from = receiver.received.length;
    const response = await app.request("POST", `/api/webhooks/${endpoint.id}/test`, { token: user.token });
    expect(response.status).toBe(200);
    const result = await json<Record<string, any>>(response);
    expect(result).toMatchObject({ succeeded: true, status_code: 200, error: null });
    const got = await receiver.next((r) => typeOf(r) === "webhook.test" && r.headers["webhook-id"] === result.message_id, 5000, from);
    expect(verified(endpoint.secret, got).data.task.name).toBe("Sample task");

    receiver.answer([503], 200, path);
    const failing = await json<Record<string, any>>(await app.request("POST", `/api/webhooks/${endpoint.id}/test`, { token: user.token }));
    expect(failing).toMatchObject({ succeeded: false, status_code: 503, error: "the endpoint answered 503" });
    let attempts: Record<string, any>[] = [];
    for (let i = 0; i < 200 && attempts.length < 2; i++) {
      attempts = await json(await app.request("GET", `/api/webhooks/${endpoint.id}/deliveries`, { token: user.token }));
      await Bun.sleep(20);
    }
    expect(attempts.map((a) => [a.type, a.status_code, a.next_attempt_at])).toEqual([
      ["webhook.test", 503, null],
      ["webhook.test", 200, null],
    ]);
  });

  test("a deleted endpoint gets nothing more", async () => {
    const user = await app.register();
    const endpoint = await register(user, { url: `${receiver.url}?deleted` });
    const kept = await register(user, { url: `${receiver.url}?kept`, events: ["task.finished"] });
    expect((await app.request("DELETE", `/api/webhooks/${endpoint.id}`, { token: user.token })).status).toBe(200);
    expect((await app.request("DELETE", `/api/webhooks/${endpoint.id}`, { token: user.token })).status).toBe(404);
    const taskId = await createTask(app, user, { name: "Unheard", segments });
    verified(kept.secret, await receiver.next(forTask(taskId, "task.finished")));
    // Nothing to wait out: once the workers have handled the log as it is now (the task's events among it), the
    // webhooks worker has scheduled every message it was going to; once they have handled the log again, up to those
    // messages, each has had its first attempt. What the deleted endpoint has not been sent by then, it is never sent.
    await workersCaughtUp(app);
    await workersCaughtUp(app);
    const heard = receiver.received.filter((r) => r.body.includes(`"id":${taskId},`));
    expect(heard).toHaveLength(1);
    expect(() => verified(endpoint.secret, heard[0]!)).toThrow();
  });
});
