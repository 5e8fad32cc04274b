import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, type Json } from "../support/tasks.ts";
import { bytes, complete, completeBody, putSigned, sign, signPart, toneFile, uploadParts, type Session } from "../support/uploads.ts";
import { chargeSeconds } from "../support/charges.ts";
import { NoSuchUploadError } from "../../src/blobs/port.ts";
import { fold } from "../../src/core/decider.ts";
import { uploadDecider } from "../../src/uploads/decider.ts";
import { uploadStream } from "../../src/uploads/events.ts";
import { Tasks } from "../../src/tasks/service.ts";
import { loadState } from "../../src/core/state-cache.ts";
import { admissionDecider } from "../../src/tasks/admission.ts";
import { userStream } from "../../src/accounts/events.ts";

const MiB = 1024 * 1024;
let app: TestApp;
let tone: Uint8Array;

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  tone = await toneFile("mp3");
});
afterAll(() => app.close());

const taskCount = async (token: string) => (await json<{ total: number }>(await app.request("GET", "/api/tasks", { token }))).total;
const sha = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

async function storageUploadId(session: Session): Promise<string> {
  const state = fold(uploadDecider, (await app.adapters.eventStore.readStream(uploadStream(session.upload_id))) as never);
  if (state.status === "none") throw new Error("no session");
  return state.session.storageUploadId;
}

async function charge(userId: number, seconds: number) {
  const position = await chargeSeconds(app.adapters.eventStore, userId, seconds);
  if (position !== null) await app.service.waitForProjections(position);
}

describe("the upload workflow", () => {
  test("sign → parts → complete creates one objstore task; a repeated complete returns the same task", async () => {
    const user = await app.register();
    const session = await sign(app, user, { file: "Team call.mp3", content_type: "audio/mpeg", size: tone.byteLength, duration: 2 });
    expect(session.path).toMatch(new RegExp(`^uploads/${user.id}/[0-9a-f]{32}/Team_call\\.mp3$`));
    expect(session.upload_id).toMatch(/^[0-9a-f]{32}$/);
    expect(session.part_size).toBeGreaterThanOrEqual(5 * MiB);
    expect(session.part_count).toBe(1);
    const lifetime = Date.parse(session.expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(23.9 * 3600_000);
    expect(lifetime).toBeLessThanOrEqual(24 * 3600_000);

    await uploadParts(app, user, session, tone);
    const body = completeBody(session, "Team call.mp3", "audio/mpeg", tone.byteLength);
    const first = await complete(app, user, body);
    expect(first.status).toBe(201);
    const created = await json<{ message: string; task: Json }>(first);
    expect(created.message).toBeString();
    expect(created.task).toEqual({
      id: expect.any(Number),
      name: "Team call",
      path: session.path,
      size: tone.byteLength,
      status: "pending",
      speaker_diarization: false,
    });

    const again = await complete(app, user, body);
    expect(again.status).toBe(201);
    expect((await json<{ task: Json }>(again)).task.id).toBe(created.task.id);
    expect(await taskCount(user.token)).toBe(1);

    const detail = await json(await app.request("GET", `/api/tasks/${created.task.id}`, { token: user.token }));
    expect(detail).toMatchObject({ disk: "objstore", file: "Team call.mp3", path: session.path, size: tone.byteLength, duration: 2 });
    // The assembled object is there and the multipart upload is gone.
    expect(await app.adapters.blobs.head(session.path)).toEqual({ size: tone.byteLength, contentType: "audio/mpeg" });
    await expect(app.adapters.blobs.listParts(session.path, await storageUploadId(session))).rejects.toBeInstanceOf(NoSuchUploadError);
  });

  test("a file of several parts is assembled byte for byte, with name and options from complete", async () => {
    const user = await app.register();
    const data = bytes(8 * MiB + 12_345, 7);
    const session = await sign(app, user, { file: "lecture.wav", content_type: "audio/x-wav", size: data.byteLength });
    expect(session.part_size).toBe(8 * MiB);
    expect(session.part_count).toBe(2);
    // Parts may arrive in any order.
    for (const n of [2, 1]) {
      const { url } = await signPart(app, user, session, n);
      expect((await putSigned(app, url, data.subarray((n - 1) * session.part_size, n * session.part_size))).status).toBe(200);
    }
    const response = await complete(
      app,
      user,
      completeBody(session, "lecture.wav", "audio/x-wav", data.byteLength, { name: "Lecture 1", speaker_diarization: true, duration: 60 }),
    );
    expect(response.status).toBe(201);
    expect((await json<{ task: Json }>(response)).task).toMatchObject({ name: "Lecture 1", speaker_diarization: true, size: data.byteLength });
    const read = await app.adapters.blobs.get(session.path);
    expect(sha(new Uint8Array(await new Response(read!.body).arrayBuffer()))).toBe(sha(data));
  });

  test("parallel completes of one upload make one task", async () => {
    const user = await app.register();
    const session = await sign(app, user, { file: "a.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    await uploadParts(app, user, session, tone);
    const body = completeBody(session, "a.mp3", "audio/mpeg", tone.byteLength);
    const responses = await Promise.all([1, 2, 3, 4, 5].map(() => complete(app, user, body)));
    const ok = responses.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of responses) expect([201, 409]).toContain(r.status);
    const ids = new Set(await Promise.all(ok.map(async (r) => (await json<{ task: Json }>(r)).task.id)));
    expect(ids.size).toBe(1);
    const retried = await json<{ task: Json }>(await complete(app, user, body));
    expect(ids.has(retried.task.id)).toBe(true);
    expect(await taskCount(user.token)).toBe(1);
    // One slot taken for the five completes, not five: the account still has room for its other two tasks.
    // (The task may have finished already and given its slot back.)
    const { state } = await loadState(app.adapters.eventStore, userStream(user.id), admissionDecider);
    expect(state.inFlight.size).toBeLessThanOrEqual(1);
    for (const slot of state.inFlight.values()) expect(ids.has(slot.taskId)).toBe(true);
  });

  test("a slot a completion took is given back when the upload is aborted before the completion was recorded", async () => {
    const user = await app.register();
    const session = await sign(app, user, { file: "a.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    const metadata = { correlationId: "c", causationId: null, userId: user.id, system: null };
    // What a complete that died between its admission and its record leaves behind.
    const tasks = new Tasks(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections, app.adapters.transcripts);
    await tasks.slots.admit(user.id, 999_001, 1, "objstore", metadata, session.upload_id);
    const slots = async () => (await loadState(app.adapters.eventStore, userStream(user.id), admissionDecider)).state.inFlight.size;
    expect(await slots()).toBe(1);
    const aborted = await app.request("POST", "/api/uploads/abort", { token: user.token, json: { path: session.path, upload_id: session.upload_id } });
    expect(aborted.status).toBe(200);
    for (let i = 0; i < 200 && (await slots()) > 0; i++) await Bun.sleep(10);
    expect(await slots()).toBe(0);
  });

  test("the supported formats are published", async () => {
    const user = await app.register();
    const body = await json<{ formats: { extension: string; content_types: string[] }[]; max_size: number }>(
      await app.request("GET", "/api/uploads/formats", { token: user.token }),
    );
    expect(body.formats.map((f) => f.extension)).toEqual(
      expect.arrayContaining(["mp3", "m4a", "aac", "wav", "flac", "ogg", "opus", "webm", "mp4", "mov", "mkv"]),
    );
    expect(body.max_size).toBe(2_147_483_648);
  });
});

describe("bad input is a clear 4xx, never a task or an object", () => {
  test("sign refuses unsupported formats, mismatched content types and sizes out of range", async () => {
    const user = await app.register();
    const cases: [Json, string][] = [
      [{ file: "notes.txt", content_type: "text/plain", size: 100 }, "file"],
      [{ file: "noextension", content_type: "audio/mpeg", size: 100 }, "file"],
      [{ file: "song.mp3", content_type: "video/mp4", size: 100 }, "content_type"],
      [{ file: "clip.mov", content_type: "audio/mpeg", size: 100 }, "content_type"],
      [{ file: "big.mp4", content_type: "video/mp4", size: 2_147_483_649 }, "size"],
      [{ file: "empty.mp4", content_type: "video/mp4", size: 0 }, "size"],
      [{ content_type: "video/mp4", size: 10 }, "file"],
    ];
    for (const [body, field] of cases) {
      const response = await app.request("POST", "/api/uploads/sign", { token: user.token, json: body });
      expect(response.status).toBe(422);
      const error = await json<{ message: string; errors: Record<string, string[]> }>(response);
      expect(Object.keys(error.errors)).toContain(field);
    }
    // The largest allowed size is fine, in at most 8 parts of at least 5 MiB.
    const largest = await sign(app, user, { file: "big.MKV", content_type: "video/x-matroska", size: 2_147_483_648 });
    expect(largest.part_count).toBeLessThanOrEqual(10_000);
    expect(largest.part_size * largest.part_count).toBeGreaterThanOrEqual(2_147_483_648);
    expect(largest.part_size * (largest.part_count - 1)).toBeLessThan(2_147_483_648);
    expect(largest.part_size).toBeGreaterThanOrEqual(5 * MiB);
  });

  test("sign-part checks the part number, the path and whose session it is", async () => {
    const owner = await app.register();
    const other = await app.register();
    const session = await sign(app, owner, { file: "a.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    const ask = (user: { token: string }, body: Json) =>
      app.request("POST", "/api/uploads/sign-part", { token: user.token, json: { path: session.path, upload_id: session.upload_id, part_number: 1, ...body } });

    for (const part_number of [0, 10_001, 1.5]) expect((await ask(owner, { part_number })).status).toBe(422);
    const beyond = await ask(owner, { part_number: 2 });
    expect(beyond.status).toBe(422);
    expect((await json<{ errors: Json }>(beyond)).errors).toHaveProperty("part_number");
    expect((await ask(owner, { path: `uploads/${owner.id}/elsewhere.mp3` })).status).toBe(422);
    expect((await ask(owner, { path: "x".repeat(2049) })).status).toBe(422);
    expect((await ask(owner, { upload_id: "y".repeat(2049) })).status).toBe(422);
    expect((await ask(owner, { upload_id: "0".repeat(32) })).status).toBe(404);
    expect((await ask(owner, { upload_id: "../../etc" })).status).toBe(404);
    // Another user's session does not exist for them, at any step.
    expect((await ask(other, {})).status).toBe(404);
    expect((await complete(app, other, completeBody(session, "a.mp3", "audio/mpeg", tone.byteLength))).status).toBe(404);
    expect((await app.request("POST", "/api/uploads/abort", { token: other.token, json: { path: session.path, upload_id: session.upload_id } })).status).toBe(
      404,
    );
    expect((await ask(owner, {})).status).toBe(200);
  });

  test("a part PUT must carry a valid, unexpired signature and exactly the part's length", async () => {
    const user = await app.register();
    const data = bytes(8 * MiB + 10, 3);
    const session = await sign(app, user, { file: "a.webm", content_type: "video/webm", size: data.byteLength });
    const { url } = await signPart(app, user, session, 2);
    const part = data.subarray(8 * MiB);

    const tampered = new URL(url);
    tampered.searchParams.set("partNumber", "1");
    expect((await putSigned(app, tampered.href, part)).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set("expires", String(Number(longer.searchParams.get("expires")) + 3600));
    expect((await putSigned(app, longer.href, part)).status).toBe(403);
    const resized = new URL(url);
    resized.searchParams.set("size", "5");
    expect((await putSigned(app, resized.href, part.subarray(0, 5))).status).toBe(403);

    // Expired: signed by the store for one second, tried after it passed.
    const expired = await app.adapters.blobs.signUploadPart(session.path, await storageUploadId(session), 2, { expiresInSeconds: 0 });
    await Bun.sleep(1100);
    expect((await putSigned(app, expired.url, part)).status).toBe(403);

    // Wrong lengths: declared otherwise, or a body that does not match.
    expect((await putSigned(app, url, part.subarray(0, 5))).status).toBe(400);
    expect((await putSigned(app, url, new Uint8Array(20))).status).toBe(400);
    const short = await app.request("PUT", new URL(url).pathname + new URL(url).search, { body: part.subarray(0, 5), headers: { "content-length": "10" } });
    expect(short.status).toBeGreaterThanOrEqual(400);
    expect(short.status).toBeLessThan(500);
    expect((await putSigned(app, url, part)).status).toBe(200);
    expect(await app.adapters.blobs.listParts(session.path, await storageUploadId(session))).toEqual([{ partNumber: 2, size: 10, etag: expect.any(String) }]);
  });

  test("complete before every part arrived, or with other details than signed, is 422 and creates nothing", async () => {
    const user = await app.register();
    const data = bytes(8 * MiB + 100, 5);
    const session = await sign(app, user, { file: "talk.m4a", content_type: "audio/mp4", size: data.byteLength });
    const body = completeBody(session, "talk.m4a", "audio/mp4", data.byteLength);

    const none = await complete(app, user, body);
    expect(none.status).toBe(422);
    expect((await json<{ message: string }>(none)).message).toMatch(/parts 1, 2 of 2 missing/);
    const { url } = await signPart(app, user, session, 1);
    expect((await putSigned(app, url, data.subarray(0, 8 * MiB))).status).toBe(200);
    const half = await complete(app, user, body);
    expect(half.status).toBe(422);
    expect((await json<{ message: string }>(half)).message).toMatch(/part 2 of 2 missing/);

    expect((await complete(app, user, { ...body, size: data.byteLength + 1 })).status).toBe(422);
    expect((await complete(app, user, { ...body, content_type: "audio/mpeg" })).status).toBe(422);
    expect((await complete(app, user, { ...body, original_name: "talk.txt" })).status).toBe(422);
    expect((await complete(app, user, { ...body, original_name: "talk.mp3", content_type: "audio/mpeg" })).status).toBe(422);
    expect((await complete(app, user, { ...body, duration: 0 })).status).toBe(422);
    expect((await complete(app, user, { ...body, path: `${session.path}x` })).status).toBe(422);
    expect(await taskCount(user.token)).toBe(0);
    expect(await app.adapters.blobs.head(session.path)).toBeNull();

    const rest = await signPart(app, user, session, 2);
    expect((await putSigned(app, rest.url, data.subarray(8 * MiB))).status).toBe(200);
    expect((await complete(app, user, body)).status).toBe(201);
    expect(await taskCount(user.token)).toBe(1);
  });

  test("abort discards the parts; sign-part, PUT and complete on it are refused afterwards", async () => {
    const user = await app.register();
    const session = await sign(app, user, { file: "a.flac", content_type: "audio/flac", size: tone.byteLength });
    const { url } = await signPart(app, user, session, 1);
    expect((await putSigned(app, url, tone)).status).toBe(200);
    const abort = () => app.request("POST", "/api/uploads/abort", { token: user.token, json: { path: session.path, upload_id: session.upload_id } });
    const aborted = await abort();
    expect(aborted.status).toBe(200);
    expect((await json<{ message: string }>(aborted)).message).toBeString();
    await expect(app.adapters.blobs.listParts(session.path, await storageUploadId(session))).rejects.toBeInstanceOf(NoSuchUploadError);

    const part = await app.request("POST", "/api/uploads/sign-part", {
      token: user.token,
      json: { path: session.path, upload_id: session.upload_id, part_number: 1 },
    });
    expect(part.status).toBe(422);
    expect((await json<{ message: string }>(part)).message).toMatch(/aborted/);
    expect((await putSigned(app, url, tone)).status).toBe(404);
    const done = await complete(app, user, completeBody(session, "a.flac", "audio/flac", tone.byteLength));
    expect(done.status).toBe(422);
    expect((await abort()).status).toBe(200);
    expect(await taskCount(user.token)).toBe(0);
    expect(await app.adapters.blobs.head(session.path)).toBeNull();
  });

  test("a completed upload cannot be aborted", async () => {
    const user = await app.register();
    const session = await sign(app, user, { file: "a.ogg", content_type: "audio/ogg", size: tone.byteLength });
    await uploadParts(app, user, session, tone);
    expect((await complete(app, user, completeBody(session, "a.ogg", "audio/ogg", tone.byteLength))).status).toBe(201);
    expect((await app.request("POST", "/api/uploads/abort", { token: user.token, json: { path: session.path, upload_id: session.upload_id } })).status).toBe(
      422,
    );
    expect(await app.adapters.blobs.head(session.path)).not.toBeNull();
  });
});

describe("API access and plan limits", () => {
  test("403 when the balance has no time left or less than the duration; the session survives a top-up", async () => {
    const user = await app.register(); // Free: 1,800 s
    expect(
      (await app.request("POST", "/api/uploads/sign", { token: user.token, json: { file: "a.mp3", content_type: "audio/mpeg", size: 10, duration: 1801 } }))
        .status,
    ).toBe(403);
    const session = await sign(app, user, { file: "a.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    await uploadParts(app, user, session, tone);
    const body = completeBody(session, "a.mp3", "audio/mpeg", tone.byteLength);
    const tooLong = await complete(app, user, { ...body, duration: 1801 });
    expect(tooLong.status).toBe(403);
    expect((await json<{ message: string }>(tooLong)).message).toMatch(/1800 s left/);

    await charge(user.id, 1800);
    const empty = await complete(app, user, body);
    expect(empty.status).toBe(403);
    expect((await json<{ message: string }>(empty)).message).toMatch(/no transcription time left/);
    expect((await app.request("POST", "/api/uploads/sign", { token: user.token, json: { file: "b.mp3", content_type: "audio/mpeg", size: 10 } })).status).toBe(
      403,
    );
    expect(await taskCount(user.token)).toBe(0);

    await app.setPlan(user.id, "pro");
    expect((await complete(app, user, body)).status).toBe(201);
  });

  test("an API key works while its plan has API access, and is refused once it does not", async () => {
    const user = await app.register();
    await app.setPlan(user.id, "pro");
    const created = await json<{ key: string }>(await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "integration" } }));
    const key = { token: created.key, id: user.id };
    const session = await sign(app, key, { file: "a.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    await uploadParts(app, key, session, tone);
    await app.setPlan(user.id, "free");
    const body = completeBody(session, "a.mp3", "audio/mpeg", tone.byteLength);
    expect((await complete(app, key, body)).status).toBe(403);
    expect(await taskCount(user.token)).toBe(0);
    // The same Free account completes it through the first-party app (a login token).
    expect((await complete(app, user, body)).status).toBe(201);
  });

  test("429 when three tasks are in progress; nothing is created and the upload can be completed later", async () => {
    const user = await app.register();
    // Three slots held straight on the account's stream (tasks being created), so no pipeline can free them.
    const tasks = new Tasks(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections, app.adapters.transcripts);
    const metadata = { correlationId: "test", causationId: null, userId: null, system: "test" };
    const held = [900_001, 900_002, 900_003].map((id) => id + user.id * 10);
    for (const id of held) await tasks.slots.admit(user.id, id, 1, "objstore", metadata);
    const session = await sign(app, user, { file: "a.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    await uploadParts(app, user, session, tone);
    const body = completeBody(session, "a.mp3", "audio/mpeg", tone.byteLength);
    expect((await complete(app, user, body)).status).toBe(429);
    expect(await taskCount(user.token)).toBe(0);
    expect((await app.adapters.eventStore.readStream(uploadStream(session.upload_id))).map((e) => e.type)).toEqual(["UploadSigned"]);
    await tasks.slots.release(user.id, held[0]!, 1, metadata);
    expect((await complete(app, user, body)).status).toBe(201);
    expect(await taskCount(user.token)).toBe(1);
  });
});

describe("GET /api/tasks/{id}/audio", () => {
  let user: { token: string; id: number };
  let taskId: number;
  beforeAll(async () => {
    user = await app.register();
    const session = await sign(app, user, { file: "tone.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    await uploadParts(app, user, session, tone);
    taskId = (await json<{ task: { id: number } }>(await complete(app, user, completeBody(session, "tone.mp3", "audio/mpeg", tone.byteLength)))).task.id;
  });
  const audio = (id: number, headers: Record<string, string> = {}, token = user.token) => app.request("GET", `/api/tasks/${id}/audio`, { token, headers });

  test("streams the original file with its content type", async () => {
    const response = await audio(taskId);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("audio/mpeg");
    expect(response.headers.get("accept-ranges")).toBe("bytes");
    expect(new Uint8Array(await response.arrayBuffer()) as Uint8Array).toEqual(tone);
  });

  test("serves byte ranges with 206, and 416 beyond the end", async () => {
    const head = await audio(taskId, { range: "bytes=0-99" });
    expect(head.status).toBe(206);
    expect(head.headers.get("content-range")).toBe(`bytes 0-99/${tone.byteLength}`);
    expect(new Uint8Array(await head.arrayBuffer()) as Uint8Array).toEqual(tone.subarray(0, 100));
    const tail = await audio(taskId, { range: "bytes=-10" });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer()) as Uint8Array).toEqual(tone.subarray(tone.byteLength - 10));
    const open = await audio(taskId, { range: `bytes=${tone.byteLength - 5}-` });
    expect(open.headers.get("content-range")).toBe(`bytes ${tone.byteLength - 5}-${tone.byteLength - 1}/${tone.byteLength}`);
    const beyond = await audio(taskId, { range: `bytes=${tone.byteLength}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${tone.byteLength}`);
  });

  test("404 for a missing file, a task not on objstore, and another user's task", async () => {
    const manual = await createTask(app, user, { disk: "objstore", path: "uploads/nothing/here.mp3" });
    expect((await audio(manual)).status).toBe(404);
    const odd = await createTask(app, user, { disk: "objstore", path: "../../etc/passwd" });
    expect((await audio(odd)).status).toBe(404);
    const other = await app.register();
    expect((await audio(taskId, {}, other.token)).status).toBe(404);
    // A hand-made task naming someone else's upload does not get to read it.
    const borrowed = await createTask(app, other, {
      disk: "objstore",
      path: (await json<{ path: string }>(await app.request("GET", `/api/tasks/${taskId}`, { token: user.token }))).path,
    });
    expect((await audio(borrowed, {}, other.token)).status).toBe(404);
    await app.setPlan(other.id, "pro");
    const remote = await createTask(app, other, { disk: "remote", path: "https://media.example/a.mp3" });
    expect((await audio(remote, {}, other.token)).status).toBe(404);
    expect((await audio(999_999)).status).toBe(404);
  });
});
