/**
 * Faults injected into the event store and document store ports (where no EventStoreDB or MongoDB server can be
 * stopped here), each a named case, while tasks are being created and worked on. After each fault: every task
 * finished exactly once, its read model says so, and the service answers again. What matters is what happens
 * after the fault; requests made during it may fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { FaultSwitch, withFaults, type Fault } from "../support/faulty-ports.ts";
import { manyRequestsPerToken } from "../support/limits.ts";
import { taskStream } from "../../src/tasks/events.ts";

const faults = { eventStore: new FaultSwitch(), documents: new FaultSwitch() };
const hits = () => [...faults.eventStore.hits.values(), ...faults.documents.hits.values()].reduce((a, b) => a + b, 0);
let app: TestApp;
let token: string;

beforeAll(async () => {
  app = await startTestApp({ ...manyRequestsPerToken, LEASE_TTL_SECONDS: "3" }, { adapters: (opened) => withFaults(opened, faults) });
  ({ token } = await app.register());
});
afterAll(async () => {
  faults.eventStore.off();
  faults.documents.off();
  await app?.close();
});

async function createTask(name: string): Promise<number> {
  const response = await app.request("POST", "/api/tasks", {
    token,
    json: { disk: "objstore", name, path: "uploads/notes.mp3", segments: [{ start: 0, end: 1500, text: `Hello from ${name}.` }] },
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

/** Waits until the API answers the task as finished (requests may fail while the service recovers). */
async function finished(id: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await app.request("GET", `/api/tasks/${id}`, { token }).catch(() => null);
    if (response?.status === 200 && ((await response.json()) as { status: string }).status === "finished") return;
    if (Date.now() > deadline) throw new Error(`task ${id} did not finish within ${timeoutMs} ms of the fault's end`);
    await Bun.sleep(100);
  }
}

type Port = keyof typeof faults;
const cases: { name: string; ports: Port[]; fault: Fault; ms: number }[] = [
  { name: "the event store unreachable for 3.5 s (an EventStoreDB restart)", ports: ["eventStore"], fault: { kind: "error" }, ms: 3_500 },
  { name: "the read models unreachable for 3.5 s (a MongoDB failover)", ports: ["documents"], fault: { kind: "error" }, ms: 3_500 },
  { name: "both stores stalled for 2 s (paused servers)", ports: ["eventStore", "documents"], fault: { kind: "stall" }, ms: 2_000 },
  { name: "both stores 200 ms late on every call for 2 s (slow disks)", ports: ["eventStore", "documents"], fault: { kind: "latency", ms: 200 }, ms: 2_000 },
];

describe("faults in the stores", () => {
  for (const { name, ports, fault, ms } of cases) {
    test(`${name}: the tasks made just before finish exactly once, and the service answers again`, async () => {
      const ids = [await createTask(`${name} 1`), await createTask(`${name} 2`)];
      const before = hits();
      await Promise.all(ports.map((port) => faults[port].during(fault, ms)));
      expect(hits()).toBeGreaterThan(before); // the fault was met, not only switched on
      for (const id of ids) await finished(id);
      for (const id of ids) {
        const events = await app.adapters.eventStore.readStream(taskStream(id));
        expect(events.filter((event) => event.type === "TaskFinished")).toHaveLength(1);
      }
      // And new work goes through at once.
      const after = await createTask(`${name} after`);
      await finished(after, 10_000);
      expect((await app.request("GET", "/api/ready")).status).toBe(200);
    }, 60_000);
  }
});
