/**
 * Faults injected into the real processes of a cluster (cluster.ts: 2 APIs, 2 workers, 2 projections processes,
 * nats-server, Ceph RGW, one shared embedded store) while four accounts upload spoken recordings and edit their
 * tasks. Each fault is a named case; after each, every task finished exactly once, was charged once, holds no slot,
 * and every read model equals a replay of the log (invariants.ts). Each prints a FAULT-FIGURES line.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import { readFileSync } from "node:fs";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { FaultCluster, leaseTtlSeconds, type Role } from "./cluster.ts";
import { Observer } from "./invariants.ts";
import { Load, httpTransport, speechText } from "./load.ts";
import { faultCase } from "./fault-case.ts";
import { spoken } from "../support/media-fixtures.ts";
import { UploadClient } from "../support/upload-client.ts";
import { until } from "../support/eventually.ts";
import { expectReadModelsEqualReplay } from "../support/read-models-replay.ts";
import type { S3BlobStore } from "../../src/blobs/s3.ts";

let cluster: FaultCluster;
let observer: Observer;
let load: Load;
let blobs: S3BlobStore;

beforeAll(async () => {
  const [started, speech] = await Promise.all([FaultCluster.start(), spoken(speechText)]);
  cluster = started;
  blobs = cluster.blobs();
  observer = await Observer.open(cluster.dataDir, blobs);
  const apis = cluster.of("api").map((m) => m.service.url);
  const clients = await Promise.all([0, 1, 2, 3].map((i) => UploadClient.register(apis[i % 2]!)));
  load = new Load(
    clients.map((client, i) => ({
      name: `client ${i + 1}`,
      role: i < 2 ? "uploader" : "editor",
      transport: httpTransport(client.baseUrl, client.token as string),
    })),
    new Uint8Array(readFileSync(speech)),
  );
}, 120_000);

afterAll(async () => {
  await load?.stop();
  await observer?.close();
  await blobs?.close();
  await cluster?.stop();
}, 60_000);

const context = () => ({ observer, load });
const ttlMs = leaseTtlSeconds * 1000;
const roles: Role[] = ["api", "workers", "projections"];

describe("faults in the cluster's processes, under load", () => {
  for (const role of roles) {
    for (const factor of [0.5, 3]) {
      const name = `${role} paused (SIGSTOP) for ${factor}x the lease`;
      test(
        name,
        () =>
          faultCase(name, context(), async () => {
            const { member, holder } = await cluster.target(role);
            await cluster.pause(member, factor * ttlMs);
            return { target: member.name, leaseHolder: holder };
          }),
        90_000,
      );
    }
  }

  for (const role of roles) {
    const name = `${role} killed (SIGKILL) and started again`;
    test(
      name,
      () =>
        faultCase(name, context(), async () => {
          const { member, holder } = await cluster.target(role);
          const killed = Date.now();
          await cluster.killAndRestart(member);
          return { target: member.name, leaseHolder: holder, restartSeconds: (Date.now() - killed) / 1000 };
        }),
      90_000,
    );
  }

  test(
    "nats-server killed for 5 s and started again",
    () =>
      faultCase("nats-server killed for 5 s and started again", context(), async () => {
        await cluster.nats.kill();
        await Bun.sleep(5_000);
        await cluster.nats.restart();
      }),
    90_000,
  );

  test(
    "radosgw (S3) killed for 5 s and started again",
    () =>
      faultCase("radosgw (S3) killed for 5 s and started again", context(), async () => {
        await cluster.s3.stopGateway();
        await Bun.sleep(5_000);
        const started = Date.now();
        await cluster.s3.startGateway();
        return { gatewayStartSeconds: (Date.now() - started) / 1000 };
      }),
    90_000,
  );

  test(
    "a foreign binary event appended to the log: the relay and the projections go past it",
    () =>
      faultCase("a foreign binary event appended to the log", context(), async () => {
        // What another application sharing the SQLite file could write: a binary payload, not JSON (sqlite-file.ts's schema).
        const db = new Database(join(cluster.dataDir, "events.sqlite"));
        try {
          db.exec("PRAGMA busy_timeout = 5000");
          db.prepare("INSERT INTO events (stream_name, revision, event_id, type, data, metadata, time) VALUES (?, 0, ?, ?, ?, ?, ?)").run(
            `other-app-${crypto.randomUUID()}`,
            crypto.randomUUID(),
            "SensorReading",
            new Uint8Array([0xff, 0x00, 0x13, 0x37, 0x89, 0x50]),
            new Uint8Array([0x00]),
            new Date().toISOString(),
          );
        } finally {
          db.close();
        }
        // Each reader says so rather than halting there: the relay's worker and the writer among the projections.
        const skipped = "skipped an event this application cannot read";
        for (const role of ["workers", "projections"] as const) {
          const skippedThere = () => cluster.of(role).some((m) => m.service.output().includes(skipped));
          await until(`a ${role} process to skip the foreign event`, skippedThere, 20_000);
        }
      }),
    90_000,
  );

  test("after every fault, a full rebuild of the log gives the live read models (read-models-replay.ts)", async () => {
    // Nothing may write meanwhile: the APIs and workers stop first, the projections once they have folded all they wrote.
    await Promise.all([cluster.stopMembers("api"), cluster.stopMembers("workers")]);
    const end = await observer.head();
    await until(`the projections to fold the log up to ${end}`, () => observer.caughtUp(end), 30_000);
    await cluster.stopMembers("projections");
    await expectReadModelsEqualReplay(cluster.dataDir, blobs);
  }, 90_000);
});
