/**
 * `bun run admin dead-letters list|retry|drop` next to a running server (`npm start`'s embedded profile, whose bus
 * lives inside the server): the CLI's retry reaches the server's redrive worker through the log alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EventStore } from "../../src/core/event-store.ts";
import { deadLetterRecorder } from "../../src/dead-letters/record.ts";
import { deadLetterStream } from "../../src/dead-letters/events.ts";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { until } from "../support/eventually.ts";
import { storedEventsOf } from "../support/stored-events.ts";

describe("bun run admin dead-letters next to a running server", () => {
  let service: RunningService;
  let store: EventStore;
  let token = "";
  let taskId = 0;
  const ids: string[] = [];
  const admin = (...args: string[]) => runCli("admin", ["dead-letters", ...args], { DATA_DIR: service.dataDir });
  const api = async (method: string, path: string, body?: unknown) =>
    fetch(`${service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    service = await startServiceProcess();
    const password = "correct horse battery";
    const registered = await fetch(`${service.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Ada", email: "ada@example.com", password, password_confirmation: password }),
    });
    token = ((await registered.json()) as { token: string }).token;
    const segments = [{ start: 0, end: 4000, text: "The garden needs water every morning." }];
    const created = await api("POST", "/api/tasks", { disk: "objstore", name: "Garden", path: "uploads/a.mp3", segments });
    expect(created.status).toBe(201);
    taskId = ((await created.json()) as { id: number }).id;
    await until("the task finished", async () => ((await (await api("GET", `/api/tasks/${taskId}`)).json()) as { status: string }).status === "finished");

    // Two workers' messages about the task, set aside as a worker's last delivery would (the server's own workers
    // handle this task fine): recorded through the same log the server reads.
    store = storedEventsOf(service.dataDir);
    const [taskCreated] = await store.readStream(`task-${taskId}`, { maxCount: 1 });
    const record = deadLetterRecorder(store);
    for (const worker of ["supplied-transcripts", "exports"])
      ids.push(await record({ worker, event: taskCreated!, deliveries: 5, error: new Error(`${worker} tripped (injected)`) }));
  }, 30_000);
  afterAll(async () => {
    await store?.close();
    await service?.stop();
  });

  test("list shows them, the owner is told, retry re-drives inside the server, drop sets one aside; unknown ids are refused", async () => {
    const table = await admin("list");
    expect(table).toMatchObject({ code: 0, stderr: "" });
    const [header, ...rows] = table.stdout.trim().split("\n");
    expect(header).toMatch(/^ID +WORKER +EVENT +STREAM +TASK +DELIVERIES +WHEN +ERROR$/);
    expect(rows).toHaveLength(2);
    expect(rows.find((row) => row.startsWith(ids[0]!))).toMatch(
      new RegExp(`^${ids[0]} +supplied-transcripts +TaskCreated +task-${taskId} +${taskId} +5 +\\S+ +supplied-transcripts tripped \\(injected\\)$`),
    );
    const listed = (await admin("list", "--json")).stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(listed.map((letter) => letter.id).sort()).toEqual([...ids].sort());
    expect(listed.find((letter) => letter.id === ids[1])).toMatchObject({ worker: "exports", event_type: "TaskCreated", task_id: taskId, deliveries: 5 });

    // One notification for the owner per dead letter about their task, naming it.
    const notifications = (await (await api("GET", "/api/notifications")).json()) as { title: string; message: string; task_id: number }[];
    expect(notifications.filter((n) => n.title === "Task problem" && n.task_id === taskId)).toHaveLength(2);
    expect(notifications.find((n) => n.title === "Task problem")?.message).toContain('task "Garden"');

    // An id that names no dead letter is refused: exit 1, as an unknown email or key (usage errors, exit 2, are
    // test/dead-letters/dead-letters-cli.unit.test.ts's).
    const unknown = await admin("retry", "0123456789abcdef");
    expect(unknown).toMatchObject({ code: 1, stderr: "admin: No dead letter with id 0123456789abcdef.\n" });

    // Retry: the server's redrive worker runs supplied-transcripts on the event again (its task is finished: nothing
    // more to do) and resolves it.
    const retried = await admin("retry", ids[0]!);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain(`dead letter ${ids[0]} (supplied-transcripts on TaskCreated of task-${taskId}) retried`);
    await until("the retry resolved by the server", async () => (await store.readStream(deadLetterStream(ids[0]!))).at(-1)?.type === "DeadLetterResolved");

    const dropped = await admin("drop", ids[1]!);
    expect(dropped).toMatchObject({ code: 0, stdout: `dead letter ${ids[1]} dropped\n` });
    expect((await admin("list")).stdout).toBe("no open dead letters\n");
    expect((await admin("retry", "--all")).stdout).toBe("no open dead letters\n");
  }, 60_000);
});
