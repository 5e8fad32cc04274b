import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { toneFile } from "../support/uploads.ts";
import { until } from "../support/eventually.ts";
import { manyLogins, manyRegistrations, manyRequestsPerToken } from "../support/limits.ts";

// Remote and video-link tasks against the real service process: media is served by a local HTTP
// server, which the fetcher may reach only because MEDIA_FETCH_ALLOW_LOOPBACK=true is set for the
// first service; the second runs without it, as production does. A second local server on 127.0.0.66
// stands for the private network: MEDIA_FETCH_FORBIDDEN_ADDRESSES marks it refused, and it counts
// every request that reaches it (there must be none).

type Json = Record<string, unknown>;
type Account = { token: string; email: string };

let media: ReturnType<typeof Bun.serve>;
let internal: ReturnType<typeof Bun.serve>;
let internalHits = 0;
let internalUrl: string;
let mediaUrl: string;
let tone: Uint8Array;
let toneM4a: Uint8Array;
let release: () => void = () => {};
const held = new Promise<void>((resolve) => (release = resolve));
let flakyAvailable = false;

let loopbackAllowed: RunningService;
let production: RunningService;

beforeAll(async () => {
  tone = await toneFile("mp3");
  toneM4a = await toneFile("m4a");
  internal = Bun.serve({ hostname: "127.0.0.66", port: 0, fetch: () => (internalHits++, new Response(tone, { headers: { "content-type": "audio/mpeg" } })) });
  internalUrl = `http://127.0.0.66:${internal.port}`;
  media = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/tone.mp3") return new Response(tone, { headers: { "content-type": "audio/mpeg" } });
      if (path === "/held.mp3") {
        await held;
        return new Response(tone, { headers: { "content-type": "audio/mpeg" } });
      }
      if (path === "/download")
        return new Response(tone, {
          headers: { "content-type": "application/octet-stream", "content-disposition": 'attachment; filename="Board meeting.mp3"' },
        });
      if (path === "/big.mp3") return new Response(new Uint8Array(300_000), { headers: { "content-type": "audio/mpeg" } });
      if (path === "/page.html") return new Response("<html><body><p>not media</p></body></html>", { headers: { "content-type": "text/html" } });
      if (path === "/to-metadata") return Response.redirect("http://169.254.169.254/latest/meta-data/iam", 302);
      if (path === "/to-internal") return Response.redirect(`${internalUrl}/tone.mp3`, 302);
      if (path === "/to-internal-page") return Response.redirect(`${internalUrl}/talk`, 307);
      if (path === "/internal-cdn")
        return new Response(`<!doctype html><html><body><video controls src="${internalUrl}/talk.m4a"></video></body></html>`, {
          headers: { "content-type": "text/html" },
        });
      if (path === "/flaky.mp3")
        return flakyAvailable ? new Response(tone, { headers: { "content-type": "audio/mpeg" } }) : new Response("gone", { status: 404 });
      if (path === "/talk")
        return new Response(`<!doctype html><html><head><title>Talk</title></head><body><video controls src="/talk.m4a"></video></body></html>`, {
          headers: { "content-type": "text/html" },
        });
      if (path === "/talk.m4a") return new Response(toneM4a, { headers: { "content-type": "audio/mp4" } });
      return new Response("not found", { status: 404 });
    },
  });
  mediaUrl = `http://127.0.0.1:${media.port}`;
  const common = { ...manyRequestsPerToken, ...manyLogins, ...manyRegistrations, MEDIA_FETCH_MAX_BYTES: "200000", MEDIA_FETCH_TIMEOUT_SECONDS: "20" };
  [loopbackAllowed, production] = await Promise.all([
    startServiceProcess({ ...common, MEDIA_FETCH_ALLOW_LOOPBACK: "true", MEDIA_FETCH_FORBIDDEN_ADDRESSES: "127.0.0.66" }),
    startServiceProcess({ ...common, MEDIA_FETCH_ALLOW_LOOPBACK: "false" }),
  ]);
}, 60_000);

afterAll(async () => {
  release();
  await Promise.all([loopbackAllowed?.stop(), production?.stop()]);
  media?.stop(true);
  internal?.stop(true);
});

async function call(service: RunningService, method: string, path: string, token: string | null, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function register(service: RunningService): Promise<Account> {
  const email = `fetch-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const response = await call(service, "POST", "/api/register", null, {
    name: "Fetcher",
    email,
    password: "password123",
    password_confirmation: "password123",
  });
  expect(response.status).toBe(201);
  return { token: ((await response.json()) as { token: string }).token, email };
}

async function create(service: RunningService, account: Account, disk: string, path: string): Promise<number> {
  const response = await call(service, "POST", "/api/tasks", account.token, { disk, name: "Fetched", path });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: number }).id;
}

const detail = async (service: RunningService, account: Account, id: number) =>
  (await (await call(service, "GET", `/api/tasks/${id}`, account.token)).json()) as Json;
const history = async (service: RunningService, account: Account, id: number) =>
  (await (await call(service, "GET", `/api/tasks/${id}/history`, account.token)).json()) as { type: string; data: Json }[];

/** The MediaFetched event of the task (the pipeline may move the task past `pending` at once). */
const fetched = (service: RunningService, account: Account, id: number) =>
  until("MediaFetched", async () => (await history(service, account, id)).find((e) => e.type === "MediaFetched")?.data);

async function failure(service: RunningService, account: Account, id: number): Promise<string> {
  const task = await until("the task to fail", async () => {
    const t = await detail(service, account, id);
    return t.status === "failed" ? t : null;
  });
  expect(task.failure_reason).toBeString();
  return task.failure_reason as string;
}

describe("remote tasks", () => {
  test("the media is fetched into storage: the task is waiting while it downloads, then pending", async () => {
    const account = await register(loopbackAllowed);
    const id = await create(loopbackAllowed, account, "remote", `${mediaUrl}/held.mp3`);
    await until("waiting", async () => (await detail(loopbackAllowed, account, id)).status === "waiting");
    release();
    const event = await fetched(loopbackAllowed, account, id);
    expect(event).toMatchObject({ size: tone.byteLength, contentType: "audio/mpeg", file: "held.mp3" });
    expect(String(event.path)).toMatch(/^media\/\d+\/\d+-[0-9a-f]{32}\/held\.mp3$/); // unguessable
    expect(new Uint8Array(readFileSync(join(loopbackAllowed.dataDir, "blobs", String(event.path)))) as Uint8Array).toEqual(tone);
    const types = (await history(loopbackAllowed, account, id)).map((e) => e.type);
    expect(types.slice(0, 3)).toEqual(["TaskCreated", "MediaFetchStarted", "MediaFetched"]);
    const task = await detail(loopbackAllowed, account, id);
    expect(task).toMatchObject({ disk: "remote", path: `${mediaUrl}/held.mp3`, url: `${mediaUrl}/held.mp3`, size: tone.byteLength, file: "held.mp3" });
    expect(task.status).not.toBe("waiting");
  });

  test("the file name comes from Content-Disposition when the URL has none", async () => {
    const account = await register(loopbackAllowed);
    const id = await create(loopbackAllowed, account, "remote", `${mediaUrl}/download`);
    expect(await fetched(loopbackAllowed, account, id)).toMatchObject({ file: "Board meeting.mp3", contentType: "audio/mpeg", size: tone.byteLength });
  });

  test("without the test setting, a URL inside our network fails the task with a reason", async () => {
    const account = await register(production);
    const id = await create(production, account, "remote", `${mediaUrl}/tone.mp3`);
    expect(await failure(production, account, id)).toMatch(/could not be fetched: .*private network/);
    const metadata = await create(production, account, "remote", "http://169.254.169.254/latest/meta-data/");
    expect(await failure(production, account, metadata)).toMatch(/private network/);
  });

  test("too big, 404, not media, and a redirect into the private network each fail with a reason", async () => {
    const account = await register(loopbackAllowed);
    const cases: [string, RegExp][] = [
      ["/big.mp3", /300000 bytes, more than the limit of 200000/],
      ["/missing.mp3", /answered 404/],
      ["/page.html", /did not return audio or video \(it returned text\/html\)/],
    ];
    for (const [path, reason] of cases) {
      const id = await create(loopbackAllowed, account, "remote", `${mediaUrl}${path}`);
      expect(await failure(loopbackAllowed, account, id)).toMatch(reason);
    }
    const redirected = await create(loopbackAllowed, account, "remote", `${mediaUrl}/to-metadata`);
    expect(await failure(loopbackAllowed, account, redirected)).toMatch(/private network/);
    const stored = (await history(loopbackAllowed, account, redirected)).some((e) => e.type === "MediaFetched");
    expect(stored).toBe(false);
  });

  test("a retried remote task waits and fetches again", async () => {
    const account = await register(loopbackAllowed);
    const id = await create(loopbackAllowed, account, "remote", `${mediaUrl}/flaky.mp3`);
    expect(await failure(loopbackAllowed, account, id)).toMatch(/404/);
    flakyAvailable = true;
    const retried = await call(loopbackAllowed, "PATCH", `/api/tasks/${id}/retry`, account.token);
    expect(((await retried.json()) as Json).status).toBe("waiting");
    expect(await fetched(loopbackAllowed, account, id)).toMatchObject({ size: tone.byteLength });
  });
});

describe("video links", () => {
  test("a video page is downloaded with yt-dlp", async () => {
    const account = await register(loopbackAllowed);
    const plan = await runCli("admin", ["plan", account.email, "pro"], { DATA_DIR: loopbackAllowed.dataDir });
    expect(plan.code).toBe(0);
    const id = await create(loopbackAllowed, account, "videolink", `${mediaUrl}/talk`);
    const event = await fetched(loopbackAllowed, account, id);
    expect(event).toMatchObject({ size: toneM4a.byteLength, contentType: "audio/mp4", file: "talk.m4a" });
    expect(new Uint8Array(readFileSync(join(loopbackAllowed.dataDir, "blobs", String(event.path)))) as Uint8Array).toEqual(toneM4a);
  });

  test("a page that cannot be downloaded, or inside our network, fails the task with a reason", async () => {
    const account = await register(loopbackAllowed);
    expect((await runCli("admin", ["plan", account.email, "pro"], { DATA_DIR: loopbackAllowed.dataDir })).code).toBe(0);
    const missing = await create(loopbackAllowed, account, "videolink", `${mediaUrl}/no-such-page`);
    expect(await failure(loopbackAllowed, account, missing)).toMatch(/could not be downloaded: .*404/);
    const privateLink = await create(loopbackAllowed, account, "videolink", "http://10.0.0.1/watch?v=1");
    expect(await failure(loopbackAllowed, account, privateLink)).toMatch(/private network/);
  });
});

describe("SSRF: every hop of both disks is vetted, and a refusal says nothing about the target", () => {
  const refusal = "the URL leads into a private network; only public addresses are fetched";
  const secrets = () => ["127.0.0.66", String(internal.port), "169.254", "10.0.0.1", "a9fe", "2130706498"];
  const targets = (): [string, string][] => [
    ["the forbidden address itself", `${internalUrl}/tone.mp3`],
    ["its IPv4-mapped IPv6 form", `http://[::ffff:127.0.0.66]:${internal.port}/tone.mp3`],
    ["its decimal form", `http://2130706498:${internal.port}/tone.mp3`],
    ["a redirect to it", `${mediaUrl}/to-internal`],
    ["a redirect to its page", `${mediaUrl}/to-internal-page`],
    ["a redirect to cloud metadata", `${mediaUrl}/to-metadata`],
    ["cloud metadata", "http://169.254.169.254/latest/meta-data/"],
    ["a private address", "http://10.0.0.1/a.mp3"],
    ["the unspecified address", `http://0.0.0.0:${internal.port}/tone.mp3`],
  ];

  for (const disk of ["remote", "videolink"] as const) {
    test(`${disk}: each target fails with the same reason, and nothing reaches the private side`, async () => {
      const account = await register(loopbackAllowed);
      expect((await runCli("admin", ["plan", account.email, "pro"], { DATA_DIR: loopbackAllowed.dataDir })).code).toBe(0);
      const cases = disk === "videolink" ? [...targets(), ["a page whose media sits on it", `${mediaUrl}/internal-cdn`] as [string, string]] : targets();
      // One at a time: a user has three tasks in flight at most.
      for (const [what, url] of cases) {
        const reason = await failure(loopbackAllowed, account, await create(loopbackAllowed, account, disk, url));
        expect({ what, reason }).toEqual({ what, reason: `The media could not be fetched: ${refusal}.` });
        for (const secret of secrets()) expect(reason).not.toContain(secret);
      }
      expect(internalHits).toBe(0);
    }, 60_000);
  }

  test("without loopback, an open and a closed port read the same: no port-scanning oracle", async () => {
    const account = await register(production);
    expect((await runCli("admin", ["plan", account.email, "pro"], { DATA_DIR: production.dataDir })).code).toBe(0);
    const closed = `http://127.0.0.1:${media.port === 1 ? 2 : 1}/tone.mp3`;
    for (const disk of ["remote", "videolink"]) {
      const reasons = [];
      for (const url of [`${mediaUrl}/tone.mp3`, closed]) reasons.push(await failure(production, account, await create(production, account, disk, url)));
      expect(reasons[0]).toBe(reasons[1]!);
    }
  }, 30_000);
});
