import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awayFromMinuteBoundary } from "../support/minute-window.ts";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";

/**
 * Two service processes on one DATA_DIR (the second plays only the api role), and the headers of a user
 * registered through the first.
 */
async function withTwoApiProcesses(
  rateLimitPerMinute: number,
  run: (first: RunningService, second: RunningService, headers: Record<string, string>) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-two-apis-"));
  const env = { RATE_LIMIT_PER_MINUTE: String(rateLimitPerMinute), SIGNING_SECRET: "shared-secret" };
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
    await run(first, second, { authorization: `Bearer ${token}` });
  } finally {
    await second.stop();
    await first.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe("limits across API processes", () => {
  test("two API processes sharing one store hold one limit per token", () =>
    withTwoApiProcesses(10, async (first, second, headers) => {
      await awayFromMinuteBoundary();
      const responses = await Promise.all(Array.from({ length: 16 }, (_, i) => fetch(`${(i % 2 ? second : first).url}/api/user`, { headers })));
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200).length).toBe(10);
      expect(statuses.filter((s) => s === 429).length).toBe(6);
    }));

  test("a token logged out through one API process is refused by the other on its next request", () =>
    withTwoApiProcesses(1000, async (first, second, headers) => {
      // Used through the second process first, so that process has the token's answer kept.
      for (let i = 0; i < 3; i++) expect((await fetch(`${second.url}/api/user`, { headers })).status).toBe(200);
      expect((await fetch(`${first.url}/api/logout`, { method: "POST", headers })).status).toBe(204);
      expect((await fetch(`${second.url}/api/user`, { headers })).status).toBe(401);
      expect((await fetch(`${first.url}/api/user`, { headers })).status).toBe(401);
    }));
});
