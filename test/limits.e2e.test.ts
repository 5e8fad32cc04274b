import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awayFromMinuteBoundary } from "./support/minute-window.ts";
import { startServiceProcess } from "./support/service-process.ts";

describe("limits across API processes", () => {
  test("two API processes sharing one store hold one limit per token", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "scribe-limits-"));
    const env = { RATE_LIMIT_PER_MINUTE: "10", SIGNING_SECRET: "shared-secret" };
    const first = await startServiceProcess(env, dataDir);
    const second = await startServiceProcess({ ...env, ROLES: "api" }, dataDir);
    try {
      const registered = await fetch(`${first.url}/api/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Ann", email: "ann@example.com", password: "password123", password_confirmation: "password123" }),
      });
      expect(registered.status).toBe(201);
      const { token } = (await registered.json()) as { token: string };
      const headers = { authorization: `Bearer ${token}` };
    await awayFromMinuteBoundary();
      const responses = await Promise.all(
        Array.from({ length: 16 }, (_, i) => fetch(`${(i % 2 ? second : first).url}/api/user`, { headers })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200).length).toBe(10);
      expect(statuses.filter((s) => s === 429).length).toBe(6);
    } finally {
      await second.stop();
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("a token logged out through one API process is refused by the other on its next request", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "scribe-logout-"));
    const env = { RATE_LIMIT_PER_MINUTE: "1000", SIGNING_SECRET: "shared-secret" };
    const first = await startServiceProcess(env, dataDir);
    const second = await startServiceProcess({ ...env, ROLES: "api" }, dataDir);
    try {
      const registered = await fetch(`${first.url}/api/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Bo", email: "bo@example.com", password: "password123", password_confirmation: "password123" }),
      });
      const { token } = (await registered.json()) as { token: string };
      const headers = { authorization: `Bearer ${token}` };
      // Used through the second process first, so that process has the token's answer kept.
      for (let i = 0; i < 3; i++) expect((await fetch(`${second.url}/api/user`, { headers })).status).toBe(200);
      expect((await fetch(`${first.url}/api/logout`, { method: "POST", headers })).status).toBe(204);
      expect((await fetch(`${second.url}/api/user`, { headers })).status).toBe(401);
      expect((await fetch(`${first.url}/api/user`, { headers })).status).toBe(401);
    } finally {
      await second.stop();
      await first.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
