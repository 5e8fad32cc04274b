/**
 * The cluster the process fault cases run against, as test/service/cluster.e2e.test.ts starts it: nats-server, a
 * real S3 (Ceph RGW), two API processes, two worker processes and two projections processes (one writer, one
 * standing by), all on one embedded event store and read-model store in a shared DATA_DIR. Every member can be
 * paused (SIGSTOP), killed (SIGKILL) and started again on its port; nats-server and radosgw can be stopped and
 * started again on their ports and stores.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";
import { s3TestAccount, startS3Server, type S3TestServer } from "../support/s3-server.ts";
import { manyLogins, manyRequestsPerToken } from "../support/limits.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { S3BlobStore } from "../../src/blobs/s3.ts";

export type Role = "api" | "workers" | "projections";
export type Member = { name: string; role: Role; port: number; service: RunningService };

/** The lease each background role holds one of (the relay among workers, the writer among projections). */
const leaseOf = { workers: "relay", projections: "projections" } as const;

/** Short, so that pauses of 0.5x and 3x the lease keep the suite short: 0.5 s and 3 s. */
export const leaseTtlSeconds = 1;

export class FaultCluster {
  readonly members: Member[] = [];
  /** Set once radosgw answers; the members start meanwhile (nothing of theirs needs S3 before their first request). */
  private gateway: S3TestServer | null = null;
  private readonly s3Endpoint: string;

  private constructor(
    readonly nats: NatsServer,
    s3Port: number,
    readonly dataDir: string,
  ) {
    this.s3Endpoint = `http://127.0.0.1:${s3Port}`;
  }

  static async start(): Promise<FaultCluster> {
    const s3Port = freePort();
    // Ceph takes a second or two to start (s3-server.ts): the members start meanwhile, on the endpoint it will have.
    const s3 = startS3Server({ port: s3Port });
    s3.catch(() => undefined);
    const cluster = new FaultCluster(await startNatsServer(), s3Port, mkdtempSync(join(tmpdir(), "scribe-faults-")));
    let failure: unknown = null;
    try {
      // The first projections process takes the writer's lease before the others start: its requests read their writes.
      await cluster.add("projections", "projections 1");
      const others = await Promise.allSettled([
        cluster.add("projections", "projections 2"),
        cluster.add("workers", "worker 1"),
        cluster.add("workers", "worker 2"),
        cluster.add("api", "api 1"),
        cluster.add("api", "api 2"),
      ]);
      failure = others.find((o) => o.status === "rejected")?.reason ?? null;
    } catch (error) {
      failure = error;
    }
    try {
      cluster.gateway = await s3;
    } catch (error) {
      failure ??= error;
    }
    if (failure !== null) {
      await cluster.stop();
      throw failure;
    }
    return cluster;
  }

  get s3(): S3TestServer {
    if (!this.gateway) throw new Error("S3 has not started");
    return this.gateway;
  }

  env(role: Role): Record<string, string> {
    return {
      ...manyRequestsPerToken,
      ...manyLogins,
      ROLES: role,
      SIGNING_SECRET: "faults-test-secret",
      NATS_URL: this.nats.url,
      S3_ENDPOINT: this.s3Endpoint,
      S3_BUCKET: s3TestAccount.bucket,
      S3_ACCESS_KEY_ID: s3TestAccount.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3TestAccount.secretAccessKey,
      S3_REGION: s3TestAccount.region,
      LEASE_TTL_SECONDS: String(leaseTtlSeconds),
      // A worker paused or killed mid-recognition hands its message over after 2 s without a heartbeat.
      TRANSCRIPTION_ACK_WAIT_SECONDS: "2",
      CHUNK_SECONDS: "5",
    };
  }

  private async add(role: Role, name: string, port = freePort()): Promise<Member> {
    const member: Member = { name, role, port, service: await startServiceProcess(this.env(role), this.dataDir, port) };
    this.members.push(member);
    return member;
  }

  /** The members playing `role`, in the order they were first started. */
  of(role: Role): Member[] {
    return this.members.filter((m) => m.role === role);
  }

  /**
   * The worker holding the relay's lease, the projections process holding the writer's, or the first API; `holder`
   * says whether the lease named it (a case's figures show it, so a fault that hit the stand-by is seen).
   */
  async target(role: Role): Promise<{ member: Member; holder: boolean }> {
    if (role === "api") return { member: this.of("api")[0]!, holder: false };
    const db = new EmbeddedDocumentStore(join(this.dataDir, "readmodels.sqlite"));
    try {
      const lease = await db.collection("leases").findOne({ _id: leaseOf[role] });
      const pid = Number(lease?.pid ?? String(lease?.holder ?? "").split(":")[1]);
      const holder = this.of(role).find((m) => m.service.process.pid === pid);
      return { member: holder ?? this.of(role)[0]!, holder: holder !== undefined };
    } finally {
      await db.close();
    }
  }

  /** SIGSTOP for `ms`, then SIGCONT: a long GC, a VM migration, a suspended laptop. */
  async pause(member: Member, ms: number): Promise<void> {
    process.kill(member.service.process.pid, "SIGSTOP");
    try {
      await Bun.sleep(ms);
    } finally {
      process.kill(member.service.process.pid, "SIGCONT");
    }
  }

  /** SIGKILL, then the same role started again on the same port; resolves once it answers its health check. */
  async killAndRestart(member: Member): Promise<void> {
    member.service.process.kill("SIGKILL");
    await member.service.process.exited;
    member.service = await startServiceProcess(this.env(member.role), this.dataDir, member.port);
  }

  /** The cluster's S3 as the service uses it: where transcripts are. */
  blobs(): S3BlobStore {
    const { endpoint, bucket, region, accessKeyId, secretAccessKey } = this.s3;
    return new S3BlobStore({ endpoint, bucket, region, accessKeyId, secretAccessKey, publicEndpoint: null, forcePathStyle: true });
  }

  /** Every member's output, for a failed case's report. */
  outputs(): string {
    return this.members.map((m) => `--- ${m.name}\n${m.service.output().slice(-4000)}`).join("\n");
  }

  /** Stops the members playing `role` (all when none is named): SIGTERM, SIGKILL for one still running after 10 s. */
  async stopMembers(role?: Role): Promise<void> {
    const members = this.members.filter((m) => (role === undefined || m.role === role) && m.service.process.exitCode === null);
    // A member left paused by a failed case would never stop.
    for (const member of members) process.kill(member.service.process.pid, "SIGCONT");
    await Promise.all(members.map((m) => Promise.race([m.service.stop(), Bun.sleep(10_000).then(() => m.service.process.kill("SIGKILL"))])));
  }

  async stop(): Promise<void> {
    await this.stopMembers();
    await this.nats.stop();
    await this.gateway?.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
