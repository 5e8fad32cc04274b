/**
 * OpenAI's own npm client against the started service (`baseURL` = ours + `/v1`), as an integration
 * written for OpenAI would use it: transcriptions in every format, the model list, and the errors it
 * raises. Each transcription is a real task: listed, with history, charged.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createReadStream, mkdtempSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { APIError, AuthenticationError, BadRequestError, NotFoundError, PermissionDeniedError, toFile } from "openai";
import { runCli, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { manyRequestsPerToken } from "../support/limits.ts";
import { clientOf, increasing, json, payingAccount, shortSpeech, speech, tasksOf, type Account } from "./openai-service.ts";

describe("the official openai client against the service", () => {
  let service: RunningService;
  let account: Account;
  let audio: Uint8Array;

  beforeAll(async () => {
    [service, audio] = await Promise.all([startServiceProcess({ ...manyRequestsPerToken }), speech()]);
    account = await payingAccount(service);
  }, 60_000);
  afterAll(() => service.stop(), 60_000);

  test("verbose_json with word and segment times: a real task, listed, with history, and charged", async () => {
    const before = (await json(service, account.token, "GET", "/api/user")).body.balance.remaining_seconds as number;
    const client = clientOf(service, account.key);
    const { data, response } = await client.audio.transcriptions
      .create({
        file: await toFile(audio, "jfk.wav", { type: "audio/wav" }),
        model: "whisper-1",
        response_format: "verbose_json",
        timestamp_granularities: ["word", "segment"],
      })
      .withResponse();

    expect(data).toMatchObject({ task: "transcribe", language: "english" });
    expect(data.duration).toBeGreaterThan(5);
    expect(data.text.toLowerCase()).toContain("country");
    expect(data.segments!.length).toBeGreaterThan(0);
    expect(increasing(data.segments!)).toBe(true);
    expect(data.segments!.at(-1)!.end).toBeLessThanOrEqual(data.duration + 0.5);
    for (const segment of data.segments!)
      expect(Object.keys(segment).sort()).toEqual([
        "avg_logprob",
        "compression_ratio",
        "end",
        "id",
        "no_speech_prob",
        "seek",
        "start",
        "temperature",
        "text",
        "tokens",
      ]);
    expect(data.words!.length).toBeGreaterThan(5);
    expect(increasing(data.words!)).toBe(true);
    expect(data.words!.map((w) => w.word.toLowerCase())).toContain("country");

    const taskId = Number(response.headers.get("x-task-id"));
    const listed = await tasksOf(service, account);
    expect(listed.map((t) => [t.id, t.status])).toContainEqual([taskId, "finished"]);
    const history = (await json(service, account.token, "GET", `/api/tasks/${taskId}/history`)).body as { type: string }[];
    expect(history.map((e) => e.type)).toEqual(expect.arrayContaining(["TaskCreated", "TranscriptionStarted", "TaskFinished"]));
    // The charge is the task-slots worker's, right after the task finished.
    const deadline = Date.now() + 10_000;
    let after = before;
    while (after === before && Date.now() < deadline) {
      await Bun.sleep(100);
      after = (await json(service, account.token, "GET", "/api/user")).body.balance.remaining_seconds;
    }
    expect(before - after).toBe(Math.ceil(data.duration));
  }, 120_000);

  test("uploads as the openai README shows them: fs.createReadStream (a streamed, chunked body), a fetch Response, a File", async () => {
    const client = clientOf(service, account.key);
    const dir = mkdtempSync(join(tmpdir(), "scribe-openai-stream-"));
    const path = join(dir, "speech.wav");
    await Bun.write(path, await shortSpeech(audio));
    const fromStream = await client.audio.transcriptions.create({ file: createReadStream(path), model: "whisper-1" });
    expect(fromStream.text.length).toBeGreaterThan(0);
    const fromResponse = await client.audio.transcriptions.create({ file: new Response(Bun.file(path)), model: "whisper-1" });
    expect(fromResponse.text).toBe(fromStream.text);
    const fromFile = await client.audio.transcriptions.create({ file: new File([readFileSync(path)], "speech.wav"), model: "whisper-1" });
    expect(fromFile.text).toBe(fromStream.text);
  }, 120_000);

  test("json, text, srt and vtt; OpenAI's model names and the engine's own run on it, another name is NotFoundError", async () => {
    const client = clientOf(service, account.key);
    const short = await shortSpeech(audio);
    const file = () => toFile(short, "speech.wav");
    const asJson = await client.audio.transcriptions.create({ file: await file(), model: "sphinx" });
    expect(asJson.text.length).toBeGreaterThan(0);
    const text = await client.audio.transcriptions.create({ file: await file(), model: "gpt-4o-transcribe", response_format: "text" });
    expect(text.trim()).toBe(asJson.text);
    const srt = await client.audio.transcriptions.create({ file: await file(), model: "whisper-1", response_format: "srt" });
    expect(srt).toMatch(/^1\n00:00:\d\d,\d{3} --> 00:00:\d\d,\d{3}\n\S/);
    const vtt = await client.audio.transcriptions.create({ file: await file(), model: "whisper-1", response_format: "vtt" });
    expect(vtt).toMatch(/^WEBVTT\n\n1\n00:00:\d\d\.\d{3} --> 00:00:\d\d\.\d{3}\n\S/);
    const before = (await tasksOf(service, account)).length;
    const unknown = await client.audio.transcriptions.create({ file: await file(), model: "any-model-name" }).catch((error: unknown) => error);
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as APIError).error).toMatchObject({ code: "model_not_found", param: "model" });
    expect((await tasksOf(service, account)).length).toBe(before);
  }, 180_000);

  test("the model list names OpenAI's transcription models and the offered engine", async () => {
    const models = await clientOf(service, account.key).models.list();
    expect(models.data.map((m) => m.id)).toEqual([
      "whisper-1",
      "gpt-4o-transcribe",
      "gpt-4o-mini-transcribe",
      "gpt-4o-mini-transcribe-2025-12-15",
      "gpt-4o-transcribe-diarize",
      "sphinx",
    ]);
    for (const model of models.data) expect(model).toMatchObject({ object: "model", owned_by: "scribe", created: expect.any(Number) });
  });

  test("no key, a wrong key, or a login token: OpenAI's error shape, and the client raises AuthenticationError", async () => {
    const anonymous = await json(service, null, "GET", "/v1/models");
    expect(anonymous).toEqual({
      status: 401,
      body: { error: { message: "Unauthenticated.", type: "authentication_error", param: null, code: "invalid_api_key" } },
    });
    const wrong = await clientOf(service, "sk_not-a-key")
      .models.list()
      .catch((error: unknown) => error);
    expect(wrong).toBeInstanceOf(AuthenticationError);
    expect((wrong as AuthenticationError).status).toBe(401);
    expect((wrong as AuthenticationError).error).toMatchObject({ type: "authentication_error" });
    // Login tokens are for the web app; integrations use keys.
    const token = await clientOf(service, account.token)
      .models.list()
      .catch((error: unknown) => error);
    expect(token).toBeInstanceOf(PermissionDeniedError);
    expect((token as APIError).message).toContain("API key");
    // The rest of the API keeps its own shape.
    expect((await json(service, null, "GET", "/api/tasks")).body).toEqual({ message: "Unauthenticated." });
  });

  test("a file that cannot be decoded is a 400 in OpenAI's shape, and makes no task", async () => {
    const before = (await tasksOf(service, account)).length;
    const refused = await clientOf(service, account.key)
      .audio.transcriptions.create({ file: await toFile(new TextEncoder().encode("meeting notes, not audio\n".repeat(40)), "notes.mp3"), model: "whisper-1" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BadRequestError);
    expect((refused as APIError).error).toMatchObject({ type: "invalid_request_error", param: "file", code: "invalid_audio" });
    expect((refused as APIError).message).toContain("not audio or video");
    const form = new FormData();
    form.append("model", "whisper-1");
    const missing = await fetch(`${service.url}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${account.key}` }, body: form });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as any).error).toMatchObject({ type: "invalid_request_error", param: "file" });
    expect((await tasksOf(service, account)).length).toBe(before);
  });

  test("a key of an account on the free plan: 403 in OpenAI's shape", async () => {
    const lapsed = await payingAccount(service);
    expect((await runCli("admin", ["plan", lapsed.email, "free"], { DATA_DIR: service.dataDir })).code).toBe(0);
    const refused = await clientOf(service, lapsed.key)
      .audio.transcriptions.create({ file: await toFile(audio, "jfk.wav"), model: "whisper-1" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PermissionDeniedError);
    expect((refused as APIError).error).toMatchObject({ type: "permission_error", message: expect.stringContaining("API access") });
    expect(await tasksOf(service, lapsed)).toEqual([]);
  });
});

describe("past the wait, and past the size limit", () => {
  let service: RunningService;
  let account: Account;

  beforeAll(async () => {
    service = await startServiceProcess({
      ...manyRequestsPerToken,
      OPENAI_COMPAT_WAIT_SECONDS: "1",
      OPENAI_COMPAT_FILE_LIMIT_BYTES: String(1024 * 1024),
    });
    account = await payingAccount(service);
  }, 60_000);
  // SIGKILL: nothing here is about stopping, and on SIGTERM the service waits its whole 8 s drain (src/main.ts) for the
  // request the 413 below answered before reading its body, which it still counts as in flight.
  afterAll(() => service.stop("SIGKILL"), 60_000);

  test("a transcription longer than the wait: 504 naming the task, which goes on; the client does not send it again", async () => {
    const refused = await clientOf(service, account.key)
      .audio.transcriptions.create({ file: await toFile(await speech(), "jfk.wav"), model: "whisper-1" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(APIError);
    expect((refused as APIError).status).toBe(504);
    const tasks = await tasksOf(service, account);
    expect(tasks.length).toBe(1);
    expect((refused as APIError).message).toContain(`GET /api/tasks/${tasks[0]!.id}`);
    expect((refused as APIError).headers?.get("x-task-id")).toBe(String(tasks[0]!.id));
    expect(["pending", "scribing", "finished"]).toContain(tasks[0]!.status);
  }, 60_000);

  test("a file over OPENAI_COMPAT_FILE_LIMIT_BYTES: 413 in OpenAI's shape", async () => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(1024 * 1024 + 100_000)]), "long.wav");
    form.append("model", "whisper-1");
    const response = await fetch(`${service.url}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: `Bearer ${account.key}` }, body: form });
    expect(response.status).toBe(413);
    expect(((await response.json()) as any).error).toMatchObject({ type: "invalid_request_error", code: "file_too_large" });
  });
});
