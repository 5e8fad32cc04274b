import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

/**
 * Idempotency-Key across API replicas: two service processes on one DATA_DIR (the second plays only the api
 * role), so the keys live in the read-model store they share, as they do in MongoDB in the cluster profile.
 */
let dataDir: string;
let first: RunningService;
let second: RunningService;
let headers: Record<string, string>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "scribe-idempotency-"));
  const env = { SIGNING_SECRET: "shared-secret", TRANSCRIPTION_WORKER: "off", ...manyRequestsPerToken };
  first = await startServiceProcess(env, dataDir);
  second = await startServiceProcess({ ...env, ROLES: "api" }, dataDir);
  const registered = await fetch(`${first.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Ann", email: "ann@example.com", password: "password123", password_confirmation: "password123" }),
  });
  expect(registered.status).toBe(201);
  const { token } = (await registered.json()) as { token: string };
  headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
}, 60_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const task = JSON.stringify({ disk: "objstore", name: "Interview", path: "uploads/a.mp3" });
const create = (service: RunningService, key: string, body = task) =>
  fetch(`${service.url}/api/tasks`, { method: "POST", headers: { ...headers, "idempotency-key": key }, body });
const taskTotal = async (service: RunningService) => ((await (await fetch(`${service.url}/api/tasks`, { headers })).json()) as { total: number }).total;

describe("Idempotency-Key across two API processes sharing one store", () => {
  test("a retry that lands on the other replica gets the first answer, byte for byte", async () => {
    const original = await create(first, "across-1");
    expect(original.status).toBe(201);
    const body = await original.text();
    const retried = await create(second, "across-1");
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await retried.text()).toBe(body);
    expect((await create(second, "across-1", JSON.stringify({ disk: "objstore", name: "Other", path: "uploads/a.mp3" }))).status).toBe(422);
    expect(await taskTotal(second)).toBe(1);
  });

  test("the same key sent to both replicas at once makes one task; every other answer is 409 or the replay", async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => create(i % 2 ? second : first, "race-1")));
    for (const response of responses) expect([201, 409]).toContain(response.status);
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    expect(fresh.length).toBe(1);
    const ids = new Set(await Promise.all(responses.filter((r) => r.status === 201).map(async (r) => ((await r.json()) as { id: number }).id)));
    expect(ids.size).toBe(1);
    expect(await taskTotal(first)).toBe(2);
  });
});
