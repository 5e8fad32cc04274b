import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

/**
 * A real S3 implementation for the e2e tests: Ceph's RADOS Gateway (Debian `radosgw`) on a
 * throwaway one-monitor, one-OSD cluster that keeps its objects in memory (memstore) under a temp
 * dir. We use it because the npm S3 emulators (s3rver, its forks, fauxqs) do not implement
 * ListParts, which completing a browser upload depends on, and no other S3 server is packaged for
 * Debian. Starting takes about 1.5 s (see the monitor's paxos settings in cephConf); everything is removed by stop().
 *
 * Install: apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd
 */
export type S3TestServer = {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  stop(): Promise<void>;
  /** Kills radosgw alone (SIGKILL), as a crashed gateway: the objects stay with the OSD, the port stays free for it. */
  stopGateway(): Promise<void>;
  /** Starts radosgw again on the same port and cluster; resolves once it answers. */
  startGateway(): Promise<void>;
};

/** The bucket and credentials every S3TestServer has: known before it answers, for processes started meanwhile. */
export const s3TestAccount = { bucket: "scribe-test", accessKeyId: "SCRIBETESTKEY", secretAccessKey: "scribe-test-secret", region: "us-east-1" } as const;

const binaries = ["monmaptool", "ceph-mon", "ceph", "ceph-osd", "radosgw", "radosgw-admin"];
const installHint = "apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd";

/** `port`: where radosgw listens (a free one by default), when something started before it must know its endpoint. */
export async function startS3Server(options: { port?: number } = {}): Promise<S3TestServer> {
  const missing = binaries.filter((b) => !Bun.which(b));
  if (missing.length) throw new Error(`S3 test server: ${missing.join(", ")} not found; install with: ${installHint}`);

  const dir = await mkdtemp(join(tmpdir(), "scribe-rgw-"));
  const daemons: Array<Subprocess & { name: string }> = [];
  const killAll = () => {
    for (const d of daemons) d.kill("SIGKILL");
  };
  // Daemons must not outlive a test run that dies without calling stop().
  process.on("exit", killAll);
  // SIGKILL at once: the cluster is thrown away with its objects (memstore, under `dir`), so there is nothing to flush,
  // and on SIGTERM radosgw and the OSD each took the full 3 s the old grace period gave them before being killed anyway.
  const stop = async (keep = false) => {
    process.off("exit", killAll);
    killAll();
    await Promise.all(daemons.map((d) => d.exited));
    if (!keep) await rm(dir, { recursive: true, force: true });
  };

  try {
    const [monPort, freeRgwPort] = freePorts(2) as [number, number];
    const rgwPort = options.port ?? freeRgwPort;
    const fsid = randomUUID();
    for (const sub of ["mon", "osd0", "run", "rgw"]) await mkdir(join(dir, sub));
    const conf = join(dir, "ceph.conf");
    await writeFile(conf, cephConf(dir, fsid, monPort, rgwPort));
    const c = ["-c", conf];

    await run(["monmaptool", "--create", "--add", "a", `v1:127.0.0.1:${monPort}`, "--fsid", fsid, join(dir, "monmap")]);
    await run(["ceph-mon", ...c, "--mkfs", "-i", "a", "--monmap", join(dir, "monmap")]);
    daemons.push(daemon(["ceph-mon", ...c, "-i", "a", "-f"], dir, "mon"));

    const osdUuid = randomUUID();
    await retry(() => run(["ceph", ...c, "--connect-timeout", "5", "osd", "new", osdUuid]), 30_000);
    // Placed in the CRUSH map here, not by the OSD at start: its own start-up commands race its
    // monitor session (they can leave with a zero fsid, "wrong fsid", and the OSD exits).
    await run(["ceph", ...c, "osd", "crush", "add", "osd.0", "1.0", "root=default"]);
    await run(["ceph-osd", ...c, "-i", "0", "--mkfs", "--osd-uuid", osdUuid]);
    daemons.push(daemon(["ceph-osd", ...c, "-i", "0", "-f"], dir, "osd"));
    const gateway = () => daemon(["radosgw", ...c, "-n", "client.rgw", "-f"], dir, "rgw");
    daemons.push(gateway());

    const endpoint = `http://127.0.0.1:${rgwPort}`;
    // radosgw answers only once it has created its pools, which needs the OSD up.
    const crashed = () => daemons.find((d) => d.exitCode !== null || d.signalCode !== null);
    const answering = () =>
      retry(async () => {
        const dead = crashed();
        if (dead) throw new FatalError(`${dead.name} exited (${dead.exitCode ?? dead.signalCode})`);
        if (!(await fetch(endpoint)).ok) throw new Error("radosgw not ready");
      }, 60_000);
    await answering();

    const server = {
      endpoint,
      ...s3TestAccount,
      stop: () => stop(),
      async stopGateway() {
        const index = daemons.findIndex((d) => d.name === "rgw");
        if (index < 0) return;
        const [rgw] = daemons.splice(index, 1);
        rgw!.kill("SIGKILL");
        await rgw!.exited;
      },
      async startGateway() {
        if (daemons.some((d) => d.name === "rgw")) return;
        daemons.push(gateway());
        await answering();
      },
    };
    await run([
      "radosgw-admin",
      ...c,
      "user",
      "create",
      "--uid=scribe",
      "--display-name=scribe",
      `--access-key=${server.accessKeyId}`,
      `--secret-key=${server.secretAccessKey}`,
    ]);
    const client = new S3Client({
      endpoint,
      region: server.region,
      forcePathStyle: true,
      credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    });
    await client.send(new CreateBucketCommand({ Bucket: server.bucket }));
    client.destroy();
    return server;
  } catch (error) {
    const files = ["mon.err", "osd.err", "rgw.err", "mon.a.log", "osd.0.log", "client.rgw.log"];
    const logs = await Promise.all(
      files.map((f) =>
        readFile(join(dir, f), "utf8").then(
          (t) => `--- ${f}\n${t.slice(-1500)}`,
          () => "",
        ),
      ),
    );
    // S3_TEST_KEEP_DIR=1 keeps the cluster's directory (logs, config) for a post-mortem.
    const keep = process.env.S3_TEST_KEEP_DIR === "1";
    await stop(keep);
    throw new Error(`S3 test server (Ceph RGW) did not start: ${(error as Error).message}${keep ? ` (kept ${dir})` : ""}\n${logs.join("\n")}`);
  }
}

function cephConf(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  // No auth, one replica, objects in RAM; every path inside `dir` so runs never collide.
  return `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
# The monitor batches map changes for paxos_propose_interval (1 s by default) before committing them: radosgw's start
# (creating its pools, one map change after another) took about 9 s of it, and the whole start 13 s; 1.5 s with these.
paxos propose interval = 0.01
paxos min wait = 0.001
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
osd objectstore = memstore
osd crush update on start = false
osd class update on start = false
memstore device bytes = 1073741824
ms bind msgr2 = false
run dir = ${dir}/run
admin socket = ${dir}/run/$name.$pid.asok
log file = ${dir}/$name.log
pid file = ${dir}/run/$name.pid
[mon.a]
mon data = ${dir}/mon
public addr = 127.0.0.1:${monPort}
[osd.0]
osd data = ${dir}/osd0
[client.rgw]
# tcp_nodelay: without it every GET answer waited about 40 ms on loopback (Nagle's algorithm meeting the client's delayed
# ACK): 45 ms a GET, 2 ms with it; a replay reading a cluster's transcripts back spent 8 s of its 8 on that.
rgw frontends = beast endpoint=127.0.0.1:${rgwPort} tcp_nodelay=1
rgw data = ${dir}/rgw
`;
}

function daemon(cmd: string[], dir: string, name: string): Subprocess & { name: string } {
  return Object.assign(Bun.spawn(cmd, { stdout: Bun.file(join(dir, `${name}.out`)), stderr: Bun.file(join(dir, `${name}.err`)) }), { name });
}

async function run(cmd: string[]): Promise<string> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}: ${err || out}`);
  return out;
}

/** A failure that waiting longer cannot cure. */
class FatalError extends Error {}

async function retry(attempt: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await attempt();
      return;
    } catch (error) {
      if (error instanceof FatalError || Date.now() > deadline) throw error;
      await Bun.sleep(250);
    }
  }
}

/**
 * Ports the OS just handed out, all held until every one is chosen so none repeats; the short
 * window before the daemons bind them is acceptable in tests.
 */
function freePorts(count: number): number[] {
  const servers = Array.from({ length: count }, () => Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } }));
  const ports = servers.map((s) => s.port);
  for (const s of servers) s.stop(true);
  return ports;
}
