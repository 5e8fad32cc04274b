/**
 * Any address: with PUBLIC_URL unset (the service names itself http://localhost:3000), the URLs a caller
 * uses at once name the address its request came to: upload parts signed at 127.0.0.1, a LAN address, behind a
 * trusted proxy (its X-Forwarded-Host and X-Forwarded-Proto) and not behind an untrusted one; the owner's audio URL,
 * the share JSON's audio URL, a ready export's URL and the sandbox's checkout page too. A hostile Host never makes a
 * malformed URL (PUBLIC_URL instead), and what leaves the app (the share link, the events) keeps PUBLIC_URL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, segment, waitForStatus, type User } from "../support/tasks.ts";
import { completeBody, sign, toneFile, type Session } from "../support/uploads.ts";
import { uploadStream } from "../../src/uploads/events.ts";
import { connect } from "node:net";

const publicUrl = "http://localhost:3000";
let app: TestApp;
/** The same service behind a reverse proxy on this machine, which it trusts (TRUSTED_PROXIES=127.0.0.0/8,::1). */
let proxied: TestApp;
/** Each listening on a port of 127.0.0.1, for requests that arrive over a real connection (the peer's address counts). */
let appUrl: string;
let proxiedUrl: string;
let tone: Uint8Array;

beforeAll(async () => {
  // TRUSTED_PROXIES names someone else: the suite's own connections (from 127.0.0.1) are not a trusted proxy's.
  [app, proxied, tone] = await Promise.all([
    startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", TRUSTED_PROXIES: "10.9.8.7" }),
    startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", TRUSTED_PROXIES: "127.0.0.0/8,::1" }),
    toneFile("mp3"),
  ]);
  appUrl = listen(app);
  proxiedUrl = listen(proxied);
});
afterAll(async () => {
  for (const each of [app, proxied]) {
    await each?.service.app.server?.stop(true);
    await each?.close();
  }
});

function listen(testApp: TestApp): string {
  const server = testApp.service.app.listen({ port: 0, hostname: "127.0.0.1" }).server!;
  return `http://127.0.0.1:${server.port}`;
}

/** A request as it reaches the service at `host` (in process: the Host header is what a client sent). */
function at(testApp: TestApp, host: string, method: string, path: string, user: User, body?: unknown, headers: Record<string, string> = {}) {
  const init: RequestInit = { method, headers: { host, authorization: `Bearer ${user.token}`, ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  // The URL as Bun's server builds it from the Host; for a Host that makes no URL, PUBLIC_URL's (the Host header still says it).
  const url = /^([\w.-]+|\[[\d:a-f]+\])(:\d{1,5})?$/i.test(host) && URL.canParse(`http://${host}`) ? `http://${host}${path}` : `${publicUrl}${path}`;
  return testApp.service.app.handle(new Request(url, init));
}

/** A request over a real connection, written by hand: Bun's server takes Host headers that fetch would never send. */
function rawRequest(baseUrl: string, lines: string[], body: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () =>
      socket.write(`${[...lines, `content-length: ${Buffer.byteLength(body)}`, "connection: close"].join("\r\n")}\r\n\r\n${body}`),
    );
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("end", () => {
      const [head = "", ...rest] = answer.split("\r\n\r\n");
      resolve({ status: Number(head.split(" ")[1]), body: rest.join("\r\n\r\n") });
    });
    socket.on("error", reject);
  });
}

async function signPartAt(testApp: TestApp, host: string, user: User, session: Session, headers: Record<string, string> = {}): Promise<string> {
  const response = await at(
    testApp,
    host,
    "POST",
    "/api/uploads/sign-part",
    user,
    { path: session.path, upload_id: session.upload_id, part_number: 1 },
    headers,
  );
  expect(response.status).toBe(200);
  return (await json<{ url: string }>(response)).url;
}

const signTone = (testApp: TestApp, user: User) => sign(testApp, user, { file: "call.mp3", content_type: "audio/mpeg", size: tone.byteLength });

/** PUTs the part to the URL as given, in process: the app answers whatever address the URL names. */
async function putPart(testApp: TestApp, url: string): Promise<Response> {
  return testApp.service.app.handle(new Request(url, { method: "PUT", body: tone, headers: { "content-length": String(tone.byteLength) } }));
}

describe("upload parts", () => {
  test.each(["127.0.0.1:3000", "192.168.1.20:3000", "[::1]:3000", "scribe.lan:8080"])(
    "signed with Host %s name that address, and the part and the complete go through",
    async (host) => {
      const user = await app.register();
      const session = await signTone(app, user);
      const url = await signPartAt(app, host, user, session);
      const origin = new URL(`http://${host}`).origin;
      expect(url.startsWith(`${origin}/storage/${session.path}?`)).toBe(true);
      expect((await putPart(app, url)).status).toBe(200);
      const completed = await at(app, host, "POST", "/api/uploads/complete", user, completeBody(session, "call.mp3", "audio/mpeg", tone.byteLength));
      expect(completed.status).toBe(201);
    },
  );

  test.each([
    ["huge", "h".repeat(20_000)],
    ["with a path", "evil.example/steal?next="],
    ["with user info", "user:pass@evil.example"],
    ["with bad characters", 'evil.example"><script>'],
    ["with spaces and a tab", "evil example\t1"],
    ["with a bad port", "example.com:99999"],
  ])("a Host %s gives a well-formed URL at PUBLIC_URL", async (_, host) => {
    const user = await app.register();
    const session = await signTone(app, user);
    const url = await signPartAt(app, host, user, session);
    expect(url.startsWith(`${publicUrl}/storage/${session.path}?`)).toBe(true);
    const parsed = new URL(url);
    expect(parsed.origin).toBe(publicUrl);
    expect(parsed.pathname).toBe(`/storage/${session.path}`);
    expect([...parsed.searchParams.keys()].sort()).toEqual(["expires", "partNumber", "signature", "size", "uploadId"]);
  });

  test.each(["evil.example/steal?next=", "user@evil.example", "[::1", 'x"><script>', "example.com:99999", "évil.example", ""])(
    "over a real connection, Host %p (of which Bun makes no URL) is a 400 in the one error shape, and the service goes on",
    async (host) => {
      const user = await app.register();
      const session = await signTone(app, user);
      const body = JSON.stringify({ path: session.path, upload_id: session.upload_id, part_number: 1 });
      const lines = ["POST /api/uploads/sign-part HTTP/1.1", `host: ${host}`, `authorization: Bearer ${user.token}`, "content-type: application/json"];
      const answer = await rawRequest(appUrl, lines, body);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toEqual({ message: "The Host header is not a valid host name." });
      expect((await rawRequest(appUrl, ["GET /share/tasks/1 HTTP/1.1", `host: ${host}`, "accept: text/html"], "")).status).toBe(400);
      // An HTTP/1.0 probe with no Host at all still gets its answer.
      expect((await rawRequest(appUrl, ["GET /api/health HTTP/1.0"], "")).status).toBe(200);
      expect((await rawRequest(appUrl, ["GET /nothing HTTP/1.0"], "")).status).toBe(404);
      // The same request with a plain Host.
      const fine = await rawRequest(appUrl, [lines[0]!, "host: 127.0.0.1", ...lines.slice(2)], body);
      expect(fine.status).toBe(200);
      expect((JSON.parse(fine.body) as { url: string }).url.startsWith(`http://127.0.0.1/storage/${session.path}?`)).toBe(true);
    },
  );

  test("a trusted proxy's X-Forwarded-Host and X-Forwarded-Proto name the address, and the part goes through the proxy", async () => {
    const user = await proxied.register();
    const session = await signTone(proxied, user);
    const response = await fetch(`${proxiedUrl}/api/uploads/sign-part`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${user.token}`,
        "content-type": "application/json",
        "x-forwarded-host": "scribe.example.com",
        "x-forwarded-proto": "https",
      },
      body: JSON.stringify({ path: session.path, upload_id: session.upload_id, part_number: 1 }),
    });
    expect(response.status).toBe(200);
    const { url } = await json<{ url: string }>(response);
    expect(url.startsWith(`https://scribe.example.com/storage/${session.path}?`)).toBe(true);
    // The proxy passes the PUT on to the service: the signature holds at whatever address the service answers.
    const { pathname, search } = new URL(url);
    const put = await fetch(`${proxiedUrl}${pathname}${search}`, { method: "PUT", body: tone });
    expect(put.status).toBe(200);
  });

  test("from an address that is not a trusted proxy, X-Forwarded-* are ignored: the URL names the Host the request came to", async () => {
    const user = await app.register();
    const session = await signTone(app, user);
    const response = await fetch(`${appUrl}/api/uploads/sign-part`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${user.token}`,
        "content-type": "application/json",
        "x-forwarded-host": "evil.example",
        "x-forwarded-proto": "https",
      },
      body: JSON.stringify({ path: session.path, upload_id: session.upload_id, part_number: 1 }),
    });
    expect(response.status).toBe(200);
    const { url } = await json<{ url: string }>(response);
    expect(url.startsWith(`${appUrl}/storage/${session.path}?`)).toBe(true);
    expect((await fetch(url, { method: "PUT", body: tone })).status).toBe(200);
  });

  test("the address a part was signed at goes into no event", async () => {
    const user = await app.register();
    const session = await signTone(app, user);
    await signPartAt(app, "192.168.77.66:3000", user, session);
    const events = await app.adapters.eventStore.readStream(uploadStream(session.upload_id));
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain("192.168.77.66");
  });
});

describe("the other URLs a caller uses at once", () => {
  let user: User;
  let taskId: number;
  const lan = "192.168.1.20:3000";
  beforeAll(async () => {
    user = await app.register();
    const session = await signTone(app, user);
    expect((await putPart(app, await signPartAt(app, lan, user, session))).status).toBe(200);
    const completed = await at(app, lan, "POST", "/api/uploads/complete", user, completeBody(session, "call.mp3", "audio/mpeg", tone.byteLength));
    taskId = (await json<{ task: { id: number } }>(completed)).task.id;
  });

  test("the owner's audio URL names the address, and plays there", async () => {
    const answer = await json<{ url: string }>(await at(app, lan, "GET", `/api/tasks/${taskId}/audio-url`, user));
    expect(answer.url.startsWith(`http://${lan}/api/tasks/${taskId}/audio/signed?`)).toBe(true);
    const audio = await app.service.app.handle(new Request(answer.url, { headers: { range: "bytes=0-9" } }));
    expect(audio.status).toBe(206);
  });

  test("the share link keeps PUBLIC_URL (it leaves the app); the share JSON's audio URL names the reader's address", async () => {
    const link = await json<{ share_url: string }>(await at(app, lan, "GET", `/api/tasks/${taskId}/share-url`, user));
    expect(link.share_url).toBe(`${publicUrl}/share/tasks/${taskId}`);
    const shared = await app.service.app.handle(
      new Request(`http://10.0.0.8:3000/share/tasks/${taskId}`, { headers: { host: "10.0.0.8:3000", accept: "application/json" } }),
    );
    const { audio_url } = await json<{ audio_url: string }>(shared);
    expect(audio_url.startsWith(`http://10.0.0.8:3000/share/tasks/${taskId}/audio?`)).toBe(true);
  });

  test("the sandbox's checkout page opens at the address the app was opened at, and its Pay page leads back there", async () => {
    const offer = await json<{ checkout_url: string }>(await at(app, lan, "GET", "/api/checkout/test", user));
    expect(offer.checkout_url.startsWith(`http://${lan}/sandbox/checkout/`)).toBe(true);
    const page = await (await app.service.app.handle(new Request(offer.checkout_url, { headers: { host: lan } }))).text();
    expect(page).toContain('<a href="/account">');
    // Without a request to go by (an API client's default), PUBLIC_URL.
    const plain = await json<{ checkout_url: string }>(await app.request("GET", "/api/checkout/test", { token: user.token }));
    expect(plain.checkout_url.startsWith(`${publicUrl}/sandbox/checkout/`)).toBe(true);
  });

  test("a ready export's signed URL names the address, and downloads there", async () => {
    const id = await createTask(app, user, { name: "Notes", segments: [segment(0, 1000, "Hello.")] });
    await waitForStatus(app, user, id, "finished");
    const deadline = Date.now() + 20_000;
    let ready: { url: string } | null = null;
    while (!ready) {
      const response = await at(app, lan, "GET", `/api/tasks/${id}/download/docx`, user, undefined, { accept: "application/json" });
      if (response.status === 200) ready = await json<{ url: string }>(response);
      else {
        expect(response.status).toBe(202);
        if (Date.now() > deadline) throw new Error("the docx was not made");
        await Bun.sleep(50);
      }
    }
    expect(ready.url.startsWith(`http://${lan}/storage/`)).toBe(true);
    expect((await app.service.app.handle(new Request(ready.url))).status).toBe(200);
  });
});
