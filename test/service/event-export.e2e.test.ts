/**
 * The analyst's side of the log, as an analyst uses it: `bun run events` (a separate process on the
 * server's DATA_DIR) after a workflow that leaves every kind of sensitive field in the log, checked
 * against the event catalogue with a JSON Schema validator, and `--flat` loaded into DuckDB with the
 * queries of docs/analysts.md, run as written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { DuckDBInstance } from "@duckdb/node-api";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { runCli } from "../support/service-process.ts";
import { createFolder, createTask, failTask, segment, waitForStatus } from "../support/tasks.ts";
import { chargeSeconds } from "../support/charges.ts";
import { catalogueText, cataloguePath } from "../../scripts/event-catalogue.ts";

const root = join(import.meta.dir, "../..");
let app: TestApp;
let env: Record<string, string>;
let people: { email: string; newEmail: string; password: string; id: number };
let charged: number;
let finishedTask: number;

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  env = { DATA_DIR: app.config.dataDir };
  // A workflow that leaves hashes, addresses, a key, an email change, tasks in every state and a charge.
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  expect((await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "ci" } })).status).toBe(201);
  const newEmail = `moved-${user.email}`;
  expect((await app.request("PUT", "/api/user", { token: user.token, json: { email: newEmail } })).status).toBe(200);
  await createFolder(app, user, "Work");
  finishedTask = await createTask(app, user, { name: "Supplied", segments: [segment(0, 1000, "hello")] });
  await waitForStatus(app, user, finishedTask, "finished");
  await app.request("PATCH", `/api/tasks/${finishedTask}`, { token: user.token, json: { name: "Renamed", folder: "Work" } });
  const failing = await createTask(app, user, { name: "Failing" });
  await failTask(app, failing);
  await waitForStatus(app, user, failing, "failed");
  expect((await app.request("PATCH", `/api/tasks/${failing}/retry`, { token: user.token })).status).toBe(200);
  charged = 125;
  await chargeSeconds(app.adapters.eventStore, user.id, charged);
  people = { email: user.email, newEmail, password: user.password, id: user.id };
  const last = (await app.adapters.eventStore.readAll({ limit: 1_000_000 })).at(-1)!;
  await app.service.waitForProjections(last.position);
});
afterAll(() => app.close());

const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("bun run events: safe by default", () => {
  test("no hash, token, key or address is printed; addresses become stable pseudonyms", async () => {
    const { code, stdout, stderr } = await runCli("events", [], env);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).not.toContain(people.email);
    expect(stdout).not.toContain(people.newEmail);
    expect(stdout).not.toMatch(/[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/i);
    const events = lines(stdout);
    const registered = events.find((e) => e.type === "UserRegistered" && (e.data as { userId: number }).userId === people.id)!;
    const data = registered.data as { email: string; passwordHash: string };
    expect(data.passwordHash).toBe("[redacted]");
    expect(data.email).toMatch(/^pseudonym:[0-9a-f]{16}$/);
    for (const type of ["AccessTokenIssued", "ApiKeyCreated"]) {
      const event = events.find((e) => e.type === type && e.streamName === `user-${people.id}`)!;
      const hashes = Object.entries(event.data as object).filter(([key]) => key.endsWith("Hash"));
      expect(hashes.length).toBe(1);
      for (const [, value] of hashes) expect(value).toBe("[redacted]");
    }
    // The address given up in the email change has the same pseudonym it had at registration.
    const changed = events.find((e) => e.type === "ProfileUpdated" && e.streamName === `user-${people.id}`)!;
    expect((changed.data as { previousEmail: string }).previousEmail).toBe(data.email);
    expect((changed.data as { email: string }).email).toMatch(/^pseudonym:/);
    expect((changed.data as { email: string }).email).not.toBe(data.email);
  });

  test("--include-secrets (operators) prints them as stored", async () => {
    const { code, stdout } = await runCli("events", ["--include-secrets", "--stream", `user-${people.id}`], env);
    expect(code).toBe(0);
    expect(stdout).toContain(people.email);
    const registered = lines(stdout).find((e) => e.type === "UserRegistered")!;
    expect((registered.data as { passwordHash: string }).passwordHash).toMatch(/^\$argon2|^\$2[aby]\$|^[^[]/);
  });
});

describe("the event catalogue", () => {
  test("is what `npm run catalogue` makes from the code's types (regenerate it when this fails)", () => {
    expect(readFileSync(cataloguePath, "utf8")).toBe(catalogueText());
  });

  test("every event of the workflow validates against it, and every type in the log is in it", async () => {
    const catalogue = JSON.parse(readFileSync(cataloguePath, "utf8")) as { $defs: Record<string, unknown> };
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(catalogue);
    const { stdout } = await runCli("events", [], env);
    const events = lines(stdout);
    expect(events.length).toBeGreaterThan(30);
    const failures: unknown[] = [];
    for (const event of events) if (!validate(event)) failures.push({ line: event, errors: validate.errors?.slice(0, 3) });
    expect(failures).toEqual([]);
    const types = new Set(events.map((e) => e.type as string));
    for (const type of types) expect(Object.keys(catalogue.$defs)).toContain(type);
    // The workflow reached the events analysts ask about most.
    for (const type of ["TaskCreated", "TaskFinished", "TaskFailed", "TaskRetried", "SecondsCharged", "ProfileUpdated", "ApiKeyCreated"])
      expect(types).toContain(type);
  });
});

describe("--flat in DuckDB", () => {
  test("loads into typed columns, and the analyst queries of docs/analysts.md run as written", async () => {
    const { code, stdout } = await runCli("events", ["--flat"], env);
    expect(code).toBe(0);
    for (const line of lines(stdout)) expect(Object.keys(line).length).toBe(23);
    const page = readFileSync(join(root, "docs", "analysts.md"), "utf8");
    const block = page.split("<!-- analyst-queries: the suite runs this block as written -->")[1]!.split("```sql\n")[1]!.split("```")[0]!;
    const statements = block
      .split(";")
      .map((s) =>
        s
          .split("\n")
          .filter((l) => !l.trim().startsWith("--"))
          .join("\n")
          .trim(),
      )
      .filter(Boolean);
    expect(statements.length).toBe(5);
    const dir = mkdtempSync(join(tmpdir(), "scribe-duckdb-"));
    const cwd = process.cwd();
    writeFileSync(join(dir, "events.ndjson"), stdout);
    const db = await DuckDBInstance.create(":memory:");
    const connection = await db.connect();
    try {
      process.chdir(dir); // the queries read 'events.ndjson' from where the analyst is
      const results = [];
      for (const statement of statements) results.push((await connection.runAndReadAll(statement)).getRowObjectsJson());
      const columns = (await connection.runAndReadAll("DESCRIBE events")).getRowObjectsJson();
      const typeOf = Object.fromEntries(columns.map((c) => [c.column_name, c.column_type]));
      expect(typeOf).toMatchObject({ position: "BIGINT", time: "TIMESTAMP", user_id: "BIGINT", task_id: "BIGINT", seconds: "BIGINT", actor_system: "VARCHAR" });
      const [, states, timeToFinish, usage, sources] = results;
      expect(states!.map((r) => r.task_status)).toEqual(expect.arrayContaining(["pending", "finished", "failed"]));
      expect(Number(timeToFinish![0]!.finished_tasks)).toBeGreaterThanOrEqual(1);
      expect(Number(timeToFinish![0]!.median_seconds)).toBeGreaterThanOrEqual(0);
      expect(usage).toContainEqual(expect.objectContaining({ user_id: String(people.id), seconds_charged: String(charged), charges: "1" }));
      expect(sources).toContainEqual(expect.objectContaining({ disk: "objstore" }));
      const finished = (
        await connection.runAndReadAll(`SELECT actor_system FROM events WHERE type = 'TaskFinished' AND task_id = ${finishedTask}`)
      ).getRowObjectsJson();
      expect(finished).toEqual([{ actor_system: "supplied-transcripts" }]);
    } finally {
      process.chdir(cwd);
      connection.closeSync();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
