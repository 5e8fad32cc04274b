import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { manyRequestsPerToken } from "../support/limits.ts";
import { bodiesParsedOffThread, membersPreparedOffThread } from "../../src/http/json-body-threads.ts";
import { storedTranscript } from "../../src/tasks/stored-transcript.ts";
import { normalizeSegments } from "../../src/tasks/segments.ts";

// Bodies over BODY_LIMIT_BYTES (1 MiB) with a member their route's schema does not name, and transcripts to POST /api/tasks
// (their segments made ready there: src/http/prepared-members.ts), are parsed on a thread
// (src/http/json-body-threads.ts), and JSON.parse's costliest shapes (a million different member names) are refused
// as the text arrives (src/http/json-shape.ts). Timings are bench/big-bodies.bench.ts's; these tests check what is
// answered and where the parse happened.

let app: TestApp;
let token: string;
beforeAll(async () => {
  app = await startTestApp({ ...manyRequestsPerToken });
  token = (await app.register()).token;
});
afterAll(() => app.close());

const post = (body: string, path = "/api/tasks", method = "POST") =>
  app.request(method, path, { token, body, headers: { "content-type": "application/json" } });
const task = '{"disk":"objstore","name":"Large","path":"a.mp3"';

/** `count` segments (over 1 MiB in all for 30,000 and more), each with `extra` members besides its own. */
function segments(count: number, extra: (i: number) => string = () => "") {
  return Array.from({ length: count }, (_, i) => `{"start":${i * 1000},"end":${i * 1000 + 900},"text":"words of segment ${i}"${extra(i)}}`).join(",");
}

describe("large bodies with names their schema does not know are parsed off the main thread", () => {
  test("an object of a million members (12 MB) is 422 on `body` while it arrives, never parsed", async () => {
    const members = Array.from({ length: 1_000_000 }, (_, i) => `,"k${String(i).padStart(6, "0")}":1`).join("");
    const before = bodiesParsedOffThread();
    const started = performance.now();
    const response = await post(`${task}${members}}`);
    expect(response.status).toBe(422);
    const message = "The request body has an object of more than 1000 members.";
    expect(await response.json()).toEqual({ message, errors: { body: [message] } });
    expect(performance.now() - started).toBeLessThan(2000); // parsed, it held the event loop 650 ms to 3 s
    expect(bodiesParsedOffThread()).toBe(before);
  });

  test("tens of thousands of different member names spread over many objects are 422 too", async () => {
    const response = await post(`${task},"segments":[${segments(20_000, (i) => `,"a${i}":1,"b${i}":2`)}]}`);
    expect(response.status).toBe(422);
    expect(((await response.json()) as { message: string }).message).toBe("The request body has more than 1000 different member names.");
  });

  test("a valid transcript over 1 MiB is parsed on the thread, and what the schema does not name never reaches the route", async () => {
    const before = bodiesParsedOffThread();
    const junk = (i: number) => `,"confidence":0.9,"words":[${'{"w":"x"},'.repeat(3)}{"w":"y"}],"n${i % 500}":${i}`;
    const body = `${task},"note":{"deep":[1,2,3]},"segments":[${segments(30_000, junk)}]}`;
    expect(body.length).toBeGreaterThan(1024 * 1024);
    const response = await post(body);
    expect(response.status).toBe(201);
    expect(bodiesParsedOffThread()).toBe(before + 1);
    const { id } = (await response.json()) as { id: number };
    const detail = (await (await app.request("GET", `/api/tasks/${id}`, { token })).json()) as { segments: Record<string, unknown>[] };
    expect(detail.segments).toHaveLength(30_000);
    expect(Object.keys(detail.segments[29_999]!).sort()).toEqual(["end", "id", "speaker", "start", "text", "tokens"]);
    expect(detail.segments[29_999]!.text).toBe("words of segment 29999");
  });

  test("a transcript over 1 MiB is checked, numbered and stored from the thread: the main thread never parses its segments", async () => {
    const before = { parsed: bodiesParsedOffThread(), prepared: membersPreparedOffThread() };
    const sent = Array.from({ length: 30_000 }, (_, i) => ({
      start: i * 1000,
      end: i * 1000 + 900,
      text: `words of segment ${i}`,
      speaker: i % 2 ? "B" : null,
    }));
    const response = await post(`${task},"segments":${JSON.stringify(sent)}}`);
    expect(response.status).toBe(201);
    expect(bodiesParsedOffThread()).toBe(before.parsed + 1);
    expect(membersPreparedOffThread()).toBe(before.prepared + 1);
    const { id } = (await response.json()) as { id: number };
    // Stored exactly as a transcript saved on the main thread is: numbered, tokens left to be derived, named by its hash.
    const expected = storedTranscript(normalizeSegments(sent));
    const created = (await app.adapters.eventStore.readStream(`task-${id}`))[0]!;
    expect(created.data).toMatchObject({ transcript: { sha256: expected.sha256, segments: 30_000, bytes: expected.bytes.byteLength } });
    const detail = (await (await app.request("GET", `/api/tasks/${id}`, { token })).json()) as { segments: Record<string, unknown>[] };
    expect(detail.segments).toHaveLength(30_000);
    expect(detail.segments[29_999]).toEqual({
      id: 30_000,
      start: 29_999_000,
      end: 29_999_900,
      text: "words of segment 29999",
      speaker: "B",
      tokens: ["words", "of", "segment", "29999"],
    });
  });

  test("a large transcript the thread declines is validated on the main thread, with the same answers", async () => {
    const before = membersPreparedOffThread();
    // An end before its start is Tasks.create's check, not the schema's: the thread declines it too.
    const backwards = await post(`${task},"segments":[${segments(30_000)},{"start":5,"end":1,"text":"x"}]}`);
    expect(backwards.status).toBe(422);
    expect(((await backwards.json()) as { errors: Record<string, string[]> }).errors).toEqual({
      "segments.30000.end": ["The segments.30000.end must not be before segments.30000.start."],
    });
    const tooLong = await post(`${task},"segments":[${segments(30_000)},{"start":1,"end":2,"text":"x","speaker":"${"s".repeat(256)}"}]}`);
    expect(tooLong.status).toBe(422);
    expect(Object.keys(((await tooLong.json()) as { errors: Record<string, string[]> }).errors)).toEqual(["segments.30000.speaker"]);
    expect(membersPreparedOffThread()).toBe(before);
  });

  test("an Idempotency-Key on a large transcript: the same body (any key order) is replayed, another one 422", async () => {
    const key = { "idempotency-key": crypto.randomUUID(), "content-type": "application/json" };
    const send = (body: string) => app.request("POST", "/api/tasks", { token, body, headers: key });
    const body = `${task},"segments":[${segments(30_000)}]}`;
    const first = await send(body);
    expect(first.status).toBe(201);
    const reordered = `{"segments":[${segments(30_000)}],"path":"a.mp3","name":"Large","disk":"objstore"}`;
    const again = await send(reordered);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(await first.json());
    const other = await send(`${task},"segments":[${segments(30_000).replace("words of segment 17", "other words 17")}]}`);
    expect(other.status).toBe(422);
    expect(Object.keys(((await other.json()) as { errors: Record<string, string[]> }).errors)).toEqual(["Idempotency-Key"]);
  });

  test("the thread fingerprints a body as the main thread does: the same body padded past 1 MiB with white space is a replay", async () => {
    const key = { "idempotency-key": crypto.randomUUID(), "content-type": "application/json" };
    const send = (body: string) => app.request("POST", "/api/tasks", { token, body, headers: key });
    const body = `${task},"segments":[${segments(3)}]}`;
    const first = await send(body); // under 1 MiB: fingerprinted on the main thread
    expect(first.status).toBe(201);
    const before = membersPreparedOffThread();
    const padded = await send(`${body.slice(0, -1)}${" ".repeat(1100 * 1024)}}`);
    expect(membersPreparedOffThread()).toBe(before + 1);
    expect(padded.status).toBe(201);
    expect(padded.headers.get("idempotent-replayed")).toBe("true");
    expect(await padded.json()).toEqual(await first.json());
  });

  test("the thread refuses as the main thread would: a schema error, __proto__ anywhere, bad JSON, a lone surrogate", async () => {
    const before = bodiesParsedOffThread();
    const task = '{"disk":"objstore","name":"Large","path":"a.mp3","unknown":1'; // a name no schema knows: to the thread
    const wrongType = await post(`${task},"segments":[${segments(30_000)},{"start":"soon","end":1,"text":"x"}]}`);
    expect(wrongType.status).toBe(422);
    expect(Object.keys(((await wrongType.json()) as { errors: Record<string, string[]> }).errors)).toEqual(["segments.30000.start"]);

    const proto = await post(`${task},"segments":[${segments(30_000)},{"start":1,"end":2,"text":"x","__proto__":{"admin":true}}]}`);
    expect(proto.status).toBe(422);
    expect(((await proto.json()) as { errors: Record<string, string[]> }).errors).toEqual({
      "segments.30000.__proto__": ["The segments.30000.__proto__ field is not allowed."],
    });

    const malformed = await post(`${task},"segments":[${segments(30_000)},}`);
    expect(malformed.status).toBe(400);
    expect(typeof ((await malformed.json()) as { message: string }).message).toBe("string");

    const surrogate = await post(`${task},"segments":[${segments(30_000)},{"start":1,"end":2,"text":"\\ud800"}]}`);
    expect(surrogate.status).toBe(422);
    expect(Object.keys(((await surrogate.json()) as { errors: Record<string, string[]> }).errors)).toEqual(["segments.30000.text"]);
    expect(bodiesParsedOffThread()).toBe(before + 4);
  });

  test("built-in names as members of a large body are plain data: the answer is validation's, never a 500", async () => {
    for (const name of ["constructor", "toString", "valueOf", "hasOwnProperty", "__defineGetter__", "prototype"]) {
      const extra = `,"${name}":{"toString":1,"valueOf":{}}`;
      // No `path`: validation answers once the thread has parsed it, and names only what is wrong.
      const response = await post(`{"disk":"objstore","name":"Large"${extra},"segments":[${segments(30_000, () => extra)}]}`);
      expect(response.status).toBe(422);
      expect(Object.keys(((await response.json()) as { errors: Record<string, string[]> }).errors)).toEqual(["path"]);
    }
    const asName = await post(`${task.replace('"Large"', '{"toString":1}')},"segments":[${segments(30_000)}]}`);
    expect(asName.status).toBe(422);
    expect(((await asName.json()) as { errors: Record<string, string[]> }).errors.name).toBeDefined();
  });

  test("PATCH of a whole transcript goes the same way", async () => {
    const created = await post(`${task},"segments":[${segments(2)}]}`);
    expect([201, 429]).toContain(created.status);
    if (created.status !== 201) return;
    const { id } = (await created.json()) as { id: number };
    const before = { parsed: bodiesParsedOffThread(), prepared: membersPreparedOffThread() };
    const response = await post(`{"name":"Edited","junk":[1,2],"segments":[${segments(30_000, () => ',"x":1')}]}`, `/api/tasks/${id}`, "PATCH");
    expect(response.status).toBe(200);
    expect(bodiesParsedOffThread()).toBe(before.parsed + 1);
    expect(membersPreparedOffThread()).toBe(before.prepared + 1);
    const detail = (await (await app.request("GET", `/api/tasks/${id}`, { token })).json()) as { name: string; segments: { text: string }[] };
    expect(detail.name).toBe("Edited");
    expect(detail.segments).toHaveLength(30_000);
    expect(detail.segments[29_999]!.text).toBe("words of segment 29999");
  });
});
