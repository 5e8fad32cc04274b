import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

// `bun run replay` beside a running server: the rebuilt read models are built next to the live ones and
// swapped in whole by the server's projection writer, so readers with valid tokens never get a 401 and
// never read an emptied list while it runs.

let service: RunningService;
let token = "";
const TASKS = 60;

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${service.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  service = await startServiceProcess({ ...manyRequestsPerToken });
  const email = `replay-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const registered = await fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Replayer", email, password: "password123", password_confirmation: "password123" }),
  });
  token = ((await registered.json()) as { token: string }).token;
  for (let i = 0; i < TASKS; i++) {
    const created = await call("POST", "/api/tasks", {
      disk: "objstore",
      path: "uploads/a.mp3",
      name: `Talk ${i}`,
      segments: [{ start: 0, end: 1000, text: `words of talk ${i}` }],
    });
    expect(created.status).toBe(201);
  }
}, 120_000);
afterAll(() => service?.stop());

describe("bun run replay next to a live server", () => {
  test("readers see the whole old model or the whole new one, never a 401 or an empty list", async () => {
    const seen: { status: number; total?: number }[] = [];
    let replaying = true;
    const readers = Array.from({ length: 3 }, async () => {
      while (replaying) {
        const [user, list] = await Promise.all([call("GET", "/api/user"), call("GET", "/api/tasks?per_page=5")]);
        seen.push({ status: user.status });
        const body = (await list.json()) as { total?: number };
        seen.push({ status: list.status, total: body.total ?? -1 });
        await user.arrayBuffer();
      }
    });
    const replay = await runCli("replay", [], { DATA_DIR: service.dataDir });
    replaying = false;
    await Promise.all(readers);
    expect(replay.stderr).toBe("");
    expect(replay.code).toBe(0);
    expect(replay.stdout).toContain("swapped in by the running server");
    expect(replay.stdout).toContain("replay done");
    expect(seen.length).toBeGreaterThan(20);
    expect(seen.filter((s) => s.status !== 200)).toEqual([]);
    expect(seen.filter((s) => s.total !== undefined && s.total !== TASKS)).toEqual([]);
  }, 120_000);

  test("after the replay the server goes on writing into the swapped-in model", async () => {
    const created = await call("POST", "/api/tasks", {
      disk: "objstore",
      path: "uploads/a.mp3",
      name: "After the replay",
      segments: [{ start: 0, end: 1000, text: "later" }],
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    expect(((await (await call("GET", `/api/tasks/${id}`)).json()) as { name: string }).name).toBe("After the replay");
    const list = (await (await call("GET", "/api/tasks?per_page=100")).json()) as { data: unknown[] };
    expect(list.data.length).toBe(TASKS + 1);
  });
});
