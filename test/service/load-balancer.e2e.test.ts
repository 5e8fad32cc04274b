import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { until } from "../support/eventually.ts";
import { prerequisite } from "../support/prerequisites.ts";

/**
 * compose.yaml's load balancer, run for real: Debian's Caddy with deploy/caddy/Caddyfile in front of two stand-in API
 * replicas and a stand-in MinIO on loopback. Only the addresses change (the compose service names become loopback
 * ports, the site listens on 127.0.0.1) and the probe interval shortens from 5 s to 250 ms so a test need not wait;
 * the routing, health checks and streaming settings are the file's own. Debian has Caddy 2.6, the compose image 2.11:
 * every directive the file uses exists in both.
 */
type Replica = { name: string; ready: boolean; server: ReturnType<typeof Bun.serve> | null; port: number };

const root = join(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "scribe-lb-"));
const replicas: Replica[] = [
  { name: "api-1", ready: true, server: null, port: 0 },
  { name: "api-2", ready: true, server: null, port: 0 },
];
let storage: ReturnType<typeof Bun.serve>;
let caddy: ReturnType<typeof Bun.spawn> | null = null;
let base = "";

/** A stand-in for one API process: readiness that a test switches, who answered, an event stream, and body counting. */
function serveReplica(replica: Replica): void {
  replica.server = Bun.serve({
    hostname: "127.0.0.1",
    port: replica.port,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      if (path === "/api/ready") return new Response(null, { status: replica.ready ? 200 : 503 });
      if (path === "/events") {
        // One event now, the next 1.5 s later: a buffering proxy would hold the first back.
        const body = new ReadableStream({
          async start(controller) {
            controller.enqueue(new TextEncoder().encode(`data: first from ${replica.name}\n\n`));
            await Bun.sleep(1500);
            controller.enqueue(new TextEncoder().encode("data: second\n\n"));
            controller.close();
          },
        });
        return new Response(body, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
      }
      const bytes = request.body ? (await request.arrayBuffer()).byteLength : 0;
      return Response.json({ replica: replica.name, path, bytes });
    },
  });
  replica.port = replica.server.port ?? 0;
}

/** Who answered `path` through the load balancer. */
async function answeredBy(path = "/whoami"): Promise<string> {
  const response = await fetch(`${base}${path}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { replica: string }).replica;
}

async function answerers(count: number): Promise<Set<string>> {
  const names = new Set<string>();
  for (let i = 0; i < count; i++) names.add(await answeredBy());
  return names;
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  probe.stop(true);
  return port;
}

describe.skipIf(!prerequisite("Caddy", Bun.which("caddy") !== null, "apt-get install caddy, or scripts/setup.sh --test"))(
  "the compose load balancer (deploy/caddy/Caddyfile)",
  () => {
    beforeAll(async () => {
      for (const replica of replicas) serveReplica(replica);
      storage = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: async (request) => {
          const url = new URL(request.url);
          const bytes = request.body ? (await request.arrayBuffer()).byteLength : 0;
          return Response.json({ replica: "minio", host: request.headers.get("host"), target: url.pathname + url.search, method: request.method, bytes });
        },
      });
      const port = freePort();
      const config = readFileSync(join(root, "deploy/caddy/Caddyfile"), "utf8")
        .replace(/^:3000 \{$/m, `:${port} {\n\tbind 127.0.0.1`)
        .replace("api-1:3000", `127.0.0.1:${replicas[0]!.port}`)
        .replace("api-2:3000", `127.0.0.1:${replicas[1]!.port}`)
        .replace("minio:9000", `127.0.0.1:${storage.port}`)
        .replace("health_interval 5s", "health_interval 250ms")
        // The time a failed replica stays out, waited whole by the last test: the same passive check, 8 s sooner.
        .replace("fail_duration 10s", "fail_duration 2s");
      expect(config).not.toMatch(/api-\d:3000|minio:9000|^:3000/m); // every address was replaced
      writeFileSync(join(work, "Caddyfile"), config);
      caddy = Bun.spawn(["caddy", "run", "--config", join(work, "Caddyfile"), "--adapter", "caddyfile"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, XDG_CONFIG_HOME: work, XDG_DATA_HOME: work, S3_BUCKET: "scribe" },
        stdout: Bun.file(join(work, "caddy.log")),
        stderr: Bun.file(join(work, "caddy.err.log")),
      });
      base = `http://127.0.0.1:${port}`;
      await until("Caddy to serve", async () => (await fetch(`${base}/whoami`).catch(() => null))?.ok, 20_000);
    }, 30_000);

    afterAll(async () => {
      caddy?.kill();
      await caddy?.exited;
      for (const replica of replicas) replica.server?.stop(true);
      storage?.stop(true);
      rmSync(work, { recursive: true, force: true });
    });

    test("spreads requests over both API replicas", async () => {
      expect(await answerers(24)).toEqual(new Set(["api-1", "api-2"]));
    });

    test("a replica whose /api/ready answers 503 gets no requests until it answers 200 again", async () => {
      replicas[0]!.ready = false;
      await until("Caddy's probe to leave api-1 out", async () => (await answerers(12)).has("api-1") === false, 15_000);
      expect(await answerers(24)).toEqual(new Set(["api-2"]));
      replicas[0]!.ready = true;
      await until("Caddy's probe to take api-1 back", async () => (await answerers(12)).has("api-1"), 15_000);
    }, 40_000);

    test("passes an event stream through as it is written", async () => {
      const started = performance.now();
      const response = await fetch(`${base}/events`);
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const reader = response.body!.getReader();
      const first = new TextDecoder().decode((await reader.read()).value);
      const firstAfter = performance.now() - started;
      expect(first).toContain("data: first from api-");
      // The second event is written 1.5 s after the first: the first must not wait for it.
      expect(firstAfter).toBeLessThan(1200);
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      expect(rest).toContain("data: second");
    });

    test("passes large bodies whole, to the API and to storage", async () => {
      const body = new Uint8Array(48 * 1024 * 1024).fill(7);
      const toApi = (await (await fetch(`${base}/api/uploads/x/parts/1`, { method: "PUT", body })).json()) as { replica: string; bytes: number };
      expect(toApi.replica).toMatch(/^api-/);
      expect(toApi.bytes).toBe(body.byteLength);
      const signed = "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=abc123";
      const toStorage = (await (await fetch(`${base}/scribe/media/part?${signed}`, { method: "PUT", body })).json()) as { replica: string; bytes: number };
      expect(toStorage).toMatchObject({ replica: "minio", bytes: body.byteLength });
    }, 30_000);

    test("sends presigned requests for the bucket to storage exactly as the client sent them, and nothing else", async () => {
      const target = "/scribe/media/a%20b.ogg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=k%2F20260101&X-Amz-Signature=abc123";
      const answer = (await (await fetch(`${base}${target}`, { headers: { range: "bytes=0-9" } })).json()) as Record<string, unknown>;
      // The signature covers the Host and the path: both arrive unchanged.
      expect(answer).toMatchObject({ replica: "minio", host: new URL(base).host, target, method: "GET" });
      // Unsigned requests to the bucket, and signed ones elsewhere, stay with the API (MinIO is not exposed).
      expect(await answeredBy("/scribe/media/a.ogg")).toMatch(/^api-/);
      expect(await answeredBy("/other-bucket/a.ogg?X-Amz-Signature=abc123")).toMatch(/^api-/);
      expect(await answeredBy("/minio/admin/v3/info?X-Amz-Signature=abc123")).toMatch(/^api-/);
    });

    test("a replica that is gone is skipped: every request still gets an answer", async () => {
      replicas[0]!.server?.stop(true);
      replicas[0]!.server = null;
      expect(await answerers(16)).toEqual(new Set(["api-2"]));
      serveReplica(replicas[0]!);
      // Its failed connections keep it out for fail_duration (10 s in the Caddyfile, 2 s here) even though its probes pass again.
      await until("api-1 to be back in rotation", async () => (await answerers(12)).has("api-1"), 25_000, 500);
    }, 40_000);
  },
);
