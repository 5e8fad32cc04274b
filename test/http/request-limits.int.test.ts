import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { manyRequestsPerToken, scriptPace } from "../support/limits.ts";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { JsonShapeScanner } from "../../src/http/json-shape.ts";
import { UploadClient } from "../support/upload-client.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

const post = (path: string, body: string, token?: string, method = "POST") =>
  app.request(method, path, { token, body, headers: { "content-type": "application/json" } });
const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);

describe("request bodies are bounded before anything parses them", () => {
  test("over 1 MiB is 413 in the error shape, unauthenticated routes included", async () => {
    const response = await post(
      "/api/register",
      JSON.stringify({ name: "x".repeat(1_100_000), email: "a@example.com", password: "password123", password_confirmation: "password123" }),
    );
    expect(response.status).toBe(413);
    // Registration takes less than the ordinary 1 MiB: no more than its schema can hold (body-plans.ts's largestBodyOf).
    expect(await response.json()).toEqual({ message: "The request body is too large: this endpoint takes at most 91456 bytes." });
  });

  test("deeply nested JSON is 422 keyed body at once, on every route that takes a body", async () => {
    const user = await app.register();
    for (const [method, path] of [
      ["DELETE", "/api/tasks/bulk"],
      ["PATCH", "/api/tasks/bulk/move"],
      ["POST", "/api/login"],
      ["POST", "/api/register"],
      ["PATCH", "/api/tasks/1"],
      ["POST", "/api/tasks"],
    ] as const) {
      const started = performance.now();
      const response = await post(path, `{"ids":${deep(30_000)}}`, user.token, method);
      expect(performance.now() - started).toBeLessThan(50);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { errors: Record<string, string[]> }).errors.body).toEqual([
        "The request body is nested too deeply: at most 32 levels of arrays and objects.",
      ]);
    }
    expect((await app.request("GET", "/api/user", { token: user.token })).status).toBe(200);
  });

  test("a transcript may be large where one is sent: creating and updating a task take 24 MiB", async () => {
    const user = await app.register();
    const segments = Array.from({ length: 3000 }, (_, i) => ({ start: i * 1000, end: i * 1000 + 900, text: "word ".repeat(80).trim() }));
    const body = JSON.stringify({ disk: "objstore", name: "Big", path: "a.mp3", segments });
    expect(body.length).toBeGreaterThan(1024 * 1024);
    expect((await post("/api/tasks", body, user.token)).status).toBe(201);
    const tooBig = JSON.stringify({ disk: "objstore", name: "Big", path: "a.mp3", segments: [{ start: 0, end: 1, text: "x".repeat(25 * 1024 * 1024) }] });
    expect((await post("/api/tasks", tooBig, user.token)).status).toBe(413);
  });

  test("a huge flat array, or too many values, is 422 keyed body before it is parsed", async () => {
    const user = await app.register();
    const junk = `{"disk":"objstore","name":"x","path":"a.mp3","segments":[${"0,".repeat(12_000_000)}0]}`; // 24 MB of 12 million items
    let started = performance.now();
    let response = await post("/api/tasks", junk, user.token);
    const tookMs = performance.now() - started;
    expect(response.status).toBe(422);
    expect(((await response.json()) as { errors: Record<string, string[]> }).errors.body).toEqual(["The request body has an array of more than 100000 items."]);
    expect(tookMs).toBeLessThan(1000); // in process the body is a 24 MB string already; over HTTP it is refused as it arrives
    started = performance.now();
    response = await post("/api/tasks/bulk", `{"ids":[${"1,".repeat(200_000)}1]}`, user.token, "DELETE");
    expect(response.status).toBe(422);
    expect(((await response.json()) as { message: string }).message).toBe("The request body has an array of more than 1000 items.");
    const values = `{"disk":"objstore","name":"x","path":"a.mp3","segments":[${Array.from({ length: 30_000 }, () => `{"start":0,"end":1,"text":"a","tokens":[${'"a",'.repeat(70)}"a"]}`).join(",")}]}`;
    response = await post("/api/tasks", values, user.token);
    expect(((await response.json()) as { message: string }).message).toBe("The request body has more than 2000000 values.");
  });

  test("a body that is not UTF-8 is 422 naming the body", async () => {
    const user = await app.register();
    const bytes = new Uint8Array([...new TextEncoder().encode('{"name":"'), 0xff, 0xfe, ...new TextEncoder().encode('"}')]);
    const response = await app.request("POST", "/api/folders", { token: user.token, body: bytes, headers: { "content-type": "application/json" } });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ message: "The request body is not valid UTF-8.", errors: { body: ["The request body is not valid UTF-8."] } });
  });

  test("the shape scan skips strings and escapes, and follows text split anywhere", () => {
    const limits = { depth: 3, arrayItems: 3, objectMembers: 4, memberNames: 6, values: 100 };
    expect(new JsonShapeScanner(limits).feed('{"a":[1,{"b":"[[[[\\"[[,,,,"}]}')).toBeNull();
    expect(new JsonShapeScanner(limits).feed(deep(4))?.rule).toBe("depth");
    expect(new JsonShapeScanner(limits).feed("[1,2,3]")).toBeNull();
    expect(new JsonShapeScanner(limits).feed("[1,2,3,4]")?.rule).toBe("arrayItems");
    expect(new JsonShapeScanner(limits).feed('{"a":1,"b":2,"c":3,"d":4}')).toBeNull(); // members are not items
    expect(new JsonShapeScanner(limits).feed('{"a":1,"b":2,"c":3,"d":4,"e":5}')?.rule).toBe("objectMembers");
    expect(new JsonShapeScanner(limits).feed('[{"a":1,"b":2,"c":3,"d":4},{"e":5}]')).toBeNull(); // counted per object
    // Different names in the whole body, however they are split: values, array items and repeats are not names.
    expect(new JsonShapeScanner(limits).feed('[{"a":"x","b":["y","z"]},{"a":{"c":1,"d":"e:f,g"}},{"e":1,"f":2}]')).toBeNull();
    expect(new JsonShapeScanner(limits).feed('[{"a":1,"b":2},{"c":3,"d":4},{"e":5,"f":6,"g":7}]')?.rule).toBe("memberNames");
    const names = new JsonShapeScanner(limits);
    const pieces = ['[{"a', 'a":1,"b\\"', '":2,"c"', ':3},{"d":4,"', "e", '":5,"f":6,"aa":7}]'];
    expect(pieces.map((piece) => names.feed(piece)?.rule ?? null)).toEqual([null, null, null, null, null, null]);
    expect(names.feed(',{"g":1}')?.rule).toBe("memberNames");
    const split = new JsonShapeScanner(limits);
    for (const piece of ['["a\\', '"b",', '"[c",3', ",4]"]) {
      const violation = split.feed(piece);
      if (violation) return expect(piece).toBe(",4]");
    }
    throw new Error("the fourth item was not seen");
  });
});

describe("over real HTTP", () => {
  let service: RunningService;
  beforeAll(async () => {
    // One account makes a dozen calls here; the rate limit has its own tests.
    service = await startServiceProcess({ ...manyRequestsPerToken });
  });
  afterAll(() => service.stop());

  /** A body sent as a stream of `chunks` pieces (Transfer-Encoding: chunked, no Content-Length), counting what was pulled. */
  const streamed = (pieces: Uint8Array[]) => {
    const sent = { pieces: 0 };
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        const piece = pieces[sent.pieces++];
        if (piece) controller.enqueue(piece);
        else controller.close();
      },
    });
    return { body, sent };
  };
  const encode = (text: string) => new TextEncoder().encode(text);
  const register = (body: ReadableStream<Uint8Array>) =>
    fetch(`${service.url}/api/register`, { method: "POST", headers: { "content-type": "application/json" }, body });

  test("a chunked JSON body (no Content-Length) is accepted, read as it arrives", async () => {
    const email = `chunked-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const text = JSON.stringify({ name: "Chunked", email, password: "password123", password_confirmation: "password123" });
    const { body } = streamed([encode(text.slice(0, 7)), encode(text.slice(7, 30)), encode(text.slice(30))]);
    const response = await register(body);
    expect(response.status).toBe(201);
    expect(((await response.json()) as { user: { email: string } }).user.email).toBe(email);
  });

  test("a chunked JSON body over the limit is 413 as soon as it passes it, the rest unread", async () => {
    const piece = encode(`"${"x".repeat(64 * 1024)}",`);
    // 64 MiB offered; registration's limit is 91,456 bytes (what its schema can hold), so the server stops reading
    // after two pieces. The client pulls what the sockets' buffers take beyond that (a few MiB, more on a busy
    // machine): most of the body is never sent.
    const { body, sent } = streamed([encode('{"name":['), ...Array.from({ length: 1024 }, () => piece), encode('""]}')]);
    const response = await register(body);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: "The request body is too large: this endpoint takes at most 91456 bytes." });
    expect(sent.pieces).toBeLessThan(512);
    expect((await fetch(`${service.url}/api/health`)).status).toBe(200);
  });

  test("a chunked form (an avatar) is accepted, and one over its limit is 413 while it streams", async () => {
    const { token } = await UploadClient.register(service.url);
    const put = async (form: FormData, extra: Uint8Array[] = []) => {
      // The form's own bytes, then sent as a stream: what a client piping a file does.
      const encoded = new Response(form);
      const contentType = encoded.headers.get("content-type")!;
      const bytes = new Uint8Array(await encoded.arrayBuffer());
      const { body, sent } = streamed([bytes.subarray(0, 100), bytes.subarray(100), ...extra]);
      const response = await fetch(`${service.url}/api/user`, {
        method: "PUT",
        headers: { "content-type": contentType, authorization: `Bearer ${token}` },
        body,
      });
      return { response, sent };
    };
    const form = new FormData();
    form.set("name", "Streamed Name");
    const renamed = await put(form);
    expect(renamed.response.status).toBe(200);
    expect(((await renamed.response.json()) as { name: string }).name).toBe("Streamed Name");

    const huge = new FormData();
    huge.set("name", "Too Big");
    huge.set("avatar", new File([new Uint8Array(6 * 1024 * 1024)], "a.png", { type: "image/png" }));
    const refused = await put(
      huge,
      // 64 MiB more behind the 6 MiB avatar: the server stops at its 5 MiB limit and the rest is never sent.
      Array.from({ length: 1024 }, () => new Uint8Array(64 * 1024)),
    );
    expect(refused.response.status).toBe(413);
    expect(((await refused.response.json()) as { message: string }).message).toContain("too large");
    expect(refused.sent.pieces).toBeLessThan(512);
    const user = (await (await fetch(`${service.url}/api/user`, { headers: { authorization: `Bearer ${token}` } })).json()) as { name: string };
    expect(user.name).toBe("Streamed Name");
  });

  test("large bodies take turns and always give their turn back: after success, refusal and validation failure alike", async () => {
    const { token } = await UploadClient.register(service.url);
    const send = (method: string, path: string, body: unknown) =>
      fetch(`${service.url}${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
    const segments = Array.from({ length: 3000 }, (_, i) => ({ start: i * 1000, end: i * 1000 + 900, text: "word ".repeat(80).trim() }));
    const created = await send("POST", "/api/tasks", { disk: "objstore", name: "Large", path: "uploads/a.mp3", segments });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    // A large body that fails validation, then one that fails a domain rule, then a large edit: none waits forever.
    expect((await send("POST", "/api/tasks", { disk: "objstore", name: "Bad", path: "uploads/a.mp3", segments: [...segments, { start: "x" }] })).status).toBe(
      422,
    );
    expect((await send("PATCH", `/api/tasks/${id}`, { segments: segments.map((s) => ({ ...s, end: s.start - 1 })) })).status).toBe(422);
    expect((await send("PATCH", `/api/tasks/${id}`, { segments: segments.slice(1) })).status).toBe(200);
    const parallel = await Promise.all([1, 2, 3].map(() => send("PATCH", `/api/tasks/${id}`, { segments })));
    expect(parallel.map((r) => r.status)).toEqual([200, 200, 200]);
  }, 60_000);
});

describe("registration is throttled per client address", () => {
  let limited: RunningService;
  beforeAll(async () => {
    limited = await startServiceProcess({ REGISTRATIONS_PER_MINUTE: "3" });
  });
  afterAll(() => limited.stop());

  test("of 6 parallel registrations from one address, 3 get in and the others are 429 with Retry-After", async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        fetch(`${limited.url}/api/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            name: `R${i}`,
            email: `r${i}-${crypto.randomUUID().slice(0, 6)}@example.com`,
            password: "password123",
            password_confirmation: "password123",
          }),
        }),
      ),
    );
    expect(responses.map((r) => r.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
    const refused = responses.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { message: string }).message).toContain("Too many registration attempts from your address");
  });
});
