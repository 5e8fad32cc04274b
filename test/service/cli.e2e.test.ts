import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { runCli } from "../support/service-process.ts";

const dataDir = mkdtempSync(join(tmpdir(), "scribe-cli-"));
const env = { DATA_DIR: dataDir };
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const metadata = { correlationId: "corr-1", causationId: null, userId: 7, system: null };

describe("bun run events (the log as NDJSON for analysts)", async () => {
  const store = new SqliteEventStore(join(dataDir, "events.sqlite"));
  await store.append(
    "task-1",
    [
      {
        id: crypto.randomUUID(),
        type: "TaskCreated",
        data: {
          taskId: 1,
          userId: 7,
          name: "a",
          file: null,
          path: "p",
          disk: "objstore",
          size: null,
          duration: null,
          cost: null,
          url: null,
          speakerDiarization: false,
          segments: null,
          createdAt: new Date().toISOString(),
        },
        metadata,
      },
    ],
    { expectedRevision: "no_stream" },
  );
  await store.append(
    "user-7",
    [
      {
        id: crypto.randomUUID(),
        type: "UserRegistered",
        data: { userId: 7, name: "X", email: "x@y.z", passwordHash: null, identity: null, registeredAt: new Date().toISOString() },
        metadata,
      },
    ],
    { expectedRevision: "no_stream" },
  );
  await store.append("task-1", [{ id: crypto.randomUUID(), type: "TaskRenamed", data: { userId: 7, name: "b" }, metadata }], { expectedRevision: 0 });
  await store.close();

  const lines = (stdout: string) =>
    stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  test("prints every event, oldest first, with its metadata", async () => {
    const { code, stdout } = await runCli("events", [], env);
    expect(code).toBe(0);
    const events = lines(stdout);
    expect(events.map((e) => e.type)).toEqual(["TaskCreated", "UserRegistered", "TaskRenamed"]);
    expect(events[0]).toMatchObject({ streamName: "task-1", revision: 0, metadata: { correlationId: "corr-1", userId: 7 } });
    expect(typeof events[0]!.time).toBe("string");
  });

  test("filters by stream, by type, by time and by position", async () => {
    expect(lines((await runCli("events", ["--stream", "task-1"], env)).stdout).map((e) => e.type)).toEqual(["TaskCreated", "TaskRenamed"]);
    expect(lines((await runCli("events", ["--type", "UserRegistered,TaskRenamed"], env)).stdout).length).toBe(2);
    expect(lines((await runCli("events", ["--since", "2999-01-01"], env)).stdout)).toEqual([]);
    expect(lines((await runCli("events", ["--until", "2999-01-01", "--limit", "1"], env)).stdout).length).toBe(1);
    const all = lines((await runCli("events", [], env)).stdout);
    expect(lines((await runCli("events", ["--after", String(all[0]!.position)], env)).stdout).length).toBe(2);
  });

  test("bad options are refused with usage and exit code 2", async () => {
    const { code, stderr } = await runCli("events", ["--since", "yesterday-ish"], env);
    expect(code).toBe(2);
    expect(stderr).toContain("usage: bun run events");
  });
});

describe("bun run replay", () => {
  test("rebuilds all read models and reports what it did", async () => {
    const { code, stdout } = await runCli("replay", [], env);
    expect(code).toBe(0);
    expect(stdout).toContain("replay done");
  });

  test("an unknown projection name is refused", async () => {
    const { code, stderr } = await runCli("replay", ["no-such-projection"], env);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown projection no-such-projection");
  });
});
