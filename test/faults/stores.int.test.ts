/**
 * Faults in the event store and document store ports (faulty-ports.ts), where no EventStoreDB or MongoDB server can
 * be stopped here: errors, stalls and latency for a window, switched on while recognition is in flight (spoken
 * recordings uploaded by two accounts, a third editing). After each: every task finished exactly once, charged
 * once, no slot held by a finished task, the read models equal a replay, and new work goes through. Each prints a
 * FAULT-FIGURES line.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { FaultSwitch, withFaults, type Fault } from "../support/faulty-ports.ts";
import { manyRequestsPerToken } from "../support/limits.ts";
import { spoken } from "../support/media-fixtures.ts";
import { Observer } from "./invariants.ts";
import { Load, type Transport, speechText } from "./load.ts";
import { faultCase } from "./fault-case.ts";
import { until } from "../support/eventually.ts";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";

const faults = { eventStore: new FaultSwitch(), documents: new FaultSwitch() };
const hits = () => [...faults.eventStore.hits.values(), ...faults.documents.hits.values()].reduce((a, b) => a + b, 0);
let app: TestApp;
let observer: Observer;
let load: Load;
let blobs: FileBlobStore;

/** The in-process app as a client reaches it: its API, and the URLs it signs (served by the app itself). */
const inProcess = (token: string): Transport => ({
  api: (method, path, body) => app.request(method, path, { token, json: body }),
  put: (url, body, headers) => app.fetch(url, { method: "PUT", body, headers: { "content-length": String(body.byteLength), ...headers } }),
});

beforeAll(async () => {
  const speech = spoken(speechText);
  app = await startTestApp({ ...manyRequestsPerToken, LEASE_TTL_SECONDS: "2", CHUNK_SECONDS: "5" }, { adapters: (opened) => withFaults(opened, faults) });
  blobs = new FileBlobStore({ root: join(app.config.dataDir, "blobs"), publicUrl: "http://localhost", secret: "read only" });
  observer = await Observer.open(app.config.dataDir, blobs);
  const users = await Promise.all([1, 2, 3].map(() => app.register()));
  load = new Load(
    users.map((user, i) => ({ name: `client ${i + 1}`, role: i < 2 ? "uploader" : "editor", transport: inProcess(user.token) })),
    new Uint8Array(readFileSync(await speech)),
  );
}, 60_000);

afterAll(async () => {
  faults.eventStore.off();
  faults.documents.off();
  await load?.stop();
  await observer?.close();
  await blobs?.close();
  await app?.close();
}, 30_000);

type Port = keyof typeof faults;
const cases: { name: string; ports: Port[]; fault: Fault; ms: number }[] = [
  { name: "the event store unreachable for 3.5 s (an EventStoreDB restart)", ports: ["eventStore"], fault: { kind: "error" }, ms: 3_500 },
  { name: "the read models unreachable for 3.5 s (a MongoDB failover)", ports: ["documents"], fault: { kind: "error" }, ms: 3_500 },
  { name: "both stores stalled for 2 s (paused servers)", ports: ["eventStore", "documents"], fault: { kind: "stall" }, ms: 2_000 },
  { name: "both stores 200 ms late on every call for 2 s (slow disks)", ports: ["eventStore", "documents"], fault: { kind: "latency", ms: 200 }, ms: 2_000 },
  // Longer than a message's five deliveries (about 3 s of back-off, src/bus/retry.ts): an outage is not poison.
  { name: "the event store unreachable for 6 s, past a message's 5 deliveries", ports: ["eventStore"], fault: { kind: "error" }, ms: 6_000 },
];

describe("faults in the stores while recognition is in flight", () => {
  for (const { name, ports, fault, ms } of cases) {
    test(name, async () => {
      await faultCase(name, { observer, load }, async () => {
        const before = hits();
        await Promise.all(ports.map((port) => faults[port].during(fault, ms)));
        // The fault was met, not only switched on.
        expect(hits()).toBeGreaterThan(before);
        return { callsHit: hits() - before };
      });
      await until("the service to say it is ready again", async () => (await app.request("GET", "/api/ready")).status === 200, 10_000);
    }, 90_000);
  }
});
