import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import { newAccessToken } from "../../src/accounts/secrets.ts";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";

type UserBody = { subscription: { plan_key: string }; balance: { top_up_remaining_seconds: number } };

async function get(url: string, token: string): Promise<Response> {
  return fetch(url, { headers: { authorization: `Bearer ${token}` } });
}

/**
 * The operator CLI is read-your-writes: it returns once the running server's read models show its
 * change, so the very next request sees it (no polling).
 */
async function atOnce(check: () => Promise<boolean>): Promise<void> {
  if (!(await check())) throw new Error("the running server did not show the change on the next request");
}

const lastLine = (stdout: string) => stdout.trim().split("\n").at(-1)!;

describe("bun run admin next to a running server (same DATA_DIR)", () => {
  let service: RunningService;
  let env: Record<string, string>;
  const email = `operator-${crypto.randomUUID().slice(0, 8)}@example.com`;
  let token = "";
  const admin = (...args: string[]) => runCli("admin", args, env);
  const user = async (credential: string) => (await (await get(`${service.url}/api/user`, credential)).json()) as UserBody;

  beforeAll(async () => {
    service = await startServiceProcess();
    env = { DATA_DIR: service.dataDir };
    const password = "correct horse battery";
    const response = await fetch(`${service.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada Operator", email, password, password_confirmation: password }),
    });
    expect(response.status).toBe(201);
    token = ((await response.json()) as { token: string }).token;
  });
  afterAll(async () => {
    await service.stop();
  });

  test("plan and grant show on the very next request to the server", async () => {
    const plan = await admin("plan", email, "pro");
    expect(plan).toMatchObject({ code: 0, stderr: "" });
    await atOnce(async () => (await user(token)).subscription.plan_key === "pro");

    const grant = await admin("grant", email.toUpperCase(), "3600");
    expect(grant.code).toBe(0);
    await atOnce(async () => (await user(token)).balance.top_up_remaining_seconds === 3600);

    // The operator acts as no user, and the events say where the change came from.
    const events = (await runCli("events", ["--type", "PlanChanged,SecondsToppedUp"], env)).stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { data: object; metadata: object });
    expect(events.map((e) => e.data)).toMatchObject([
      { plan: "pro", interval: "month", source: "operator" },
      { seconds: 3600, source: "operator" },
    ]);
    for (const event of events) expect(event.metadata).toMatchObject({ userId: null, causationId: null, correlationId: expect.any(String) });
  });

  test("API keys: created and revoked by the operator; a downgrade shuts the others out", async () => {
    const created = await admin("apikey", "create", email);
    expect(created.code).toBe(0);
    const key = lastLine(created.stdout);
    expect(key).toStartWith("sk_");
    await atOnce(async () => (await get(`${service.url}/api/user`, key)).status === 200);
    const keys = (await (await get(`${service.url}/api/api-keys`, token)).json()) as { id: string; name: string }[];
    const id = /^id: (\S+)$/m.exec(created.stdout)![1]!;
    expect(keys).toContainEqual(expect.objectContaining({ id, name: "Operator key" }));

    expect((await admin("apikey", "revoke", id)).code).toBe(0);
    await atOnce(async () => (await get(`${service.url}/api/user`, key)).status === 401);

    const second = lastLine((await admin("apikey", "create", email, "--name", "CI")).stdout);
    await atOnce(async () => (await get(`${service.url}/api/user`, second)).status === 200);
    expect((await admin("plan", email, "free")).code).toBe(0);
    await atOnce(async () => (await get(`${service.url}/api/user`, second)).status === 403);
  });

  test("refusals exit 1 with a clear message", async () => {
    const freePlan = await admin("apikey", "create", email);
    expect(freePlan.code).toBe(1);
    expect(freePlan.stderr).toContain("the Free plan has no API access");
    const unknown = await admin("grant", "nobody@example.com", "60");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain("no user with email nobody@example.com");
    expect(await admin("apikey", "revoke", "no-such-key")).toMatchObject({ code: 1, stderr: expect.stringContaining("no API key with id no-such-key") });
  });

  test("users lists every account as a table or NDJSON", async () => {
    const table = await admin("users");
    expect(table.code).toBe(0);
    const [header, row] = table.stdout.trim().split("\n");
    expect(header!.split(/\s+/)).toEqual(["ID", "EMAIL", "NAME", "PLAN", "REMAINING_SECONDS"]);
    expect(row).toContain(email);
    const json = await admin("users", "--json");
    const users = json.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(users).toContainEqual({ id: expect.any(Number), email, name: "Ada Operator", plan: "free", remaining_seconds: 1800 + 3600 });
  });

  test("bad usage prints the usage on stderr and exits 2", async () => {
    for (const args of [
      [],
      ["plan", email],
      ["plan", email, "gold"],
      ["grant", email, "-5"],
      ["grant", email, "1.5"],
      ["apikey"],
      ["users", "--all"],
      ["reboot"],
    ]) {
      const result = await admin(...args);
      expect({ args, code: result.code }).toEqual({ args, code: 2 });
      expect(result.stderr).toContain("usage: bun run admin");
    }
    const help = await admin("help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("apikey revoke <key-id>");
  }, 30_000); // nine CLI processes, one after the other
});

describe("bun run admin before any server ever ran (only the event log)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "scribe-admin-"));
  const env = { DATA_DIR: dataDir };
  const email = "early@example.com";
  const { token, tokenId, tokenHash } = newAccessToken();
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  beforeAll(async () => {
    const store = new SqliteEventStore(join(dataDir, "events.sqlite"));
    const command = {
      type: "RegisterUser",
      userId: 1,
      name: "Early",
      email,
      passwordHash: null,
      identity: null,
      credential: { kind: "token", tokenId, tokenHash },
      method: "registration",
      now: new Date().toISOString(),
    } as const;
    await handle(store, userStream(1), userDecider, (state) => userDecider.decide(command, state), {
      metadata: { correlationId: "seed", causationId: null, userId: null, system: "test" },
    });
    await store.close();
    expect(readdirSync(dataDir)).not.toContain("readmodels.sqlite");
  });

  test("the CLI builds the read models itself, and a server started later agrees", async () => {
    const plan = await runCli("admin", ["plan", email, "max"], env);
    expect(plan).toMatchObject({ code: 0, stderr: "" });
    const users = await runCli("admin", ["users", "--json"], env);
    expect(JSON.parse(users.stdout.trim())).toMatchObject({ id: 1, email, plan: "max" });

    const service = await startServiceProcess({}, dataDir);
    try {
      expect(((await (await get(`${service.url}/api/user`, token)).json()) as UserBody).subscription.plan_key).toBe("max");
    } finally {
      await service.stop();
    }
  });
});
