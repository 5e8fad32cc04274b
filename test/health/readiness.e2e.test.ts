/**
 * Readiness against a real dependency going away, per role: an API process and a workers process on NATS (the
 * cluster's bus), nats-server killed → the workers' `/api/ready` is 503 naming the bus within 5 s while the API,
 * which does not use the bus, stays ready; nats-server back → 200 again, without a restart.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";

let nats: NatsServer;
let service: RunningService;
let api: RunningService;
beforeAll(async () => {
  nats = await startNatsServer();
  [service, api] = await Promise.all([
    startServiceProcess({ NATS_URL: nats.url, ROLES: "workers" }),
    startServiceProcess({ NATS_URL: nats.url, ROLES: "api" }),
  ]);
}, 60_000);
afterAll(async () => {
  await service?.stop();
  await api?.stop();
  await nats?.stop();
});

type Ready = { status: string; dependencies: { name: string; ok: boolean }[] };
const ready = async () => {
  const response = await fetch(`${service.url}/api/ready`);
  return { status: response.status, body: (await response.json()) as Ready };
};

/** Asks until `status` comes or `withinMs` passes; says when it came. */
async function becomes(status: number, withinMs: number): Promise<{ status: number; afterMs: number; body: Ready }> {
  const started = Date.now();
  for (;;) {
    const answer = await ready();
    if (answer.status === status || Date.now() - started > withinMs) return { ...answer, afterMs: Date.now() - started };
    await Bun.sleep(100);
  }
}

test("the bus going away makes a workers process 503 within 5 s, not the API; ready again once the bus is back", async () => {
  expect((await ready()).status).toBe(200);
  await nats.kill();
  const down = await becomes(503, 5_000);
  expect(down.status).toBe(503);
  expect(down.afterMs).toBeLessThan(5_000);
  expect(down.body.dependencies.filter((d) => !d.ok).map((d) => d.name)).toEqual(["bus"]);
  const apiReady = await fetch(`${api.url}/api/ready`);
  expect(apiReady.status).toBe(200);
  expect(((await apiReady.json()) as Ready).dependencies.map((d) => d.name)).not.toContain("bus");
  await nats.restart();
  const up = await becomes(200, 15_000);
  expect(up.status).toBe(200);
}, 60_000);
