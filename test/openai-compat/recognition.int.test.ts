/**
 * `model`, `language` and `prompt` on OpenAI's transcription endpoint become the task's engine, language and
 * vocabulary, through OpenAI's own client (its `fetch` the in-process app). The worker is off and the wait 1 s: each
 * accepted request answers 504 naming its task, whose detail shows what was asked; each refused one makes no task.
 * Recognising real speech with them is openai-client.e2e.test.ts's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI, { APIError, BadRequestError, NotFoundError, toFile } from "openai";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

let app: TestApp;
let key = "";
let token = "";

/** A second of silence as a 16 kHz mono WAV: audio ffprobe reads, made here. */
function silentWav(seconds = 1): Uint8Array {
  const samples = 16_000 * seconds;
  const bytes = new Uint8Array(44 + samples * 2);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) view.setUint8(at + i, text.charCodeAt(i));
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + samples * 2, true);
  ascii(8, "WAVEfmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 16_000, true);
  view.setUint32(28, 32_000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, samples * 2, true);
  return bytes;
}

beforeAll(async () => {
  // TRANSCRIPTION_OPENAI_URL offers the `openai` engine beside PocketSphinx (the default); nothing is sent to it with the worker off.
  app = await startTestApp({
    ...scriptPace,
    TRANSCRIPTION_WORKER: "off",
    OPENAI_COMPAT_WAIT_SECONDS: "1",
    TRANSCRIPTION_OPENAI_URL: "http://127.0.0.1:9/v1",
  });
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  token = user.token;
  const created = await app.request("POST", "/api/api-keys", { token, json: { name: "openai recognition" } });
  expect(created.status).toBe(201);
  key = ((await created.json()) as { key: string }).key;
});
afterAll(() => app.close());

// The client calls fetch with a URL string and its init, which the in-process app takes as they are.
const client = () =>
  new OpenAI({
    apiKey: key,
    baseURL: `${app.origin}/v1`,
    fetch: (url: string | URL | Request, init?: RequestInit) => app.fetch(String(url), init),
    maxRetries: 0,
  });

type Detail = { id: number; engine: string | null; language: string | null; vocabulary: string[] };
const taskIds = async () => ((await (await app.request("GET", "/api/tasks", { token })).json()) as { data: { id: number }[] }).data.map((t) => t.id);
const detailOf = async (id: number) => (await (await app.request("GET", `/api/tasks/${id}`, { token })).json()) as Detail;

/**
 * Sends a transcription and returns the task it made (the 504 past the wait names it), or the client's error when
 * refused. The task is deleted once read: with the worker off it would stay pending, and 3 in progress is the limit.
 */
async function transcribe(params: Partial<OpenAI.Audio.TranscriptionCreateParamsNonStreaming>): Promise<Detail | APIError> {
  const error = await client()
    .audio.transcriptions.create({ file: await toFile(silentWav(), "speech.wav"), model: "whisper-1", ...params, stream: false })
    .then(() => new Error("answered before the task could have finished"))
    .catch((caught: unknown) => caught);
  if (!(error instanceof APIError)) throw error;
  if (error.status !== 504) return error;
  const id = Number(error.headers?.get("x-task-id"));
  const detail = await detailOf(id);
  expect((await app.request("DELETE", `/api/tasks/${id}`, { token })).status).toBeLessThan(300);
  return detail;
}

async function refused(params: Partial<OpenAI.Audio.TranscriptionCreateParamsNonStreaming>): Promise<APIError> {
  const before = await taskIds();
  const answer = await transcribe(params);
  if (!(answer instanceof APIError)) throw new Error(`made task ${answer.id}`);
  expect(await taskIds()).toEqual(before);
  return answer;
}

describe("model", () => {
  test("GET /v1/models lists OpenAI's transcription models and every offered engine; one by its id", async () => {
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual([
      "whisper-1",
      "gpt-4o-transcribe",
      "gpt-4o-mini-transcribe",
      "gpt-4o-mini-transcribe-2025-12-15",
      "gpt-4o-transcribe-diarize",
      "sphinx",
      "openai",
    ]);
    expect(await client().models.retrieve("openai")).toMatchObject({ id: "openai", object: "model", owned_by: "scribe" });
    for (const missing of ["whisper", "__proto__", "constructor", "gpt-4"]) {
      const error = await client()
        .models.retrieve(missing)
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(NotFoundError);
      expect((error as APIError).code).toBe("model_not_found");
    }
  });

  test("GET /v1/models/{model} with a hostile name: OpenAI's shape, never a 500", async () => {
    for (const [path, status] of [
      [`/v1/models/${"m".repeat(257)}`, 400],
      ["/v1/models/%E0%A4%A", 400],
      ["/v1/models/sphinx%00", 404],
      ["/v1/models/%5F%5Fproto%5F%5F", 404],
      ["/v1/models/constructor", 404],
    ] as const) {
      const response = await app.request("GET", path, { token: key });
      const body = (await response.json()) as { error: { type: string } };
      expect({ path, status: response.status }).toEqual({ path, status });
      expect(body.error.type).toBe(status === 400 ? "invalid_request_error" : "not_found_error");
    }
  });

  test("OpenAI's names run on the default engine, an engine's name on that engine", async () => {
    for (const [model, engine] of [
      ["whisper-1", null],
      ["gpt-4o-mini-transcribe", null],
      ["sphinx", "sphinx"],
      ["openai", "openai"],
    ] as const)
      expect(await transcribe({ model })).toMatchObject({ engine });
  });

  test("an unknown model, an engine not offered, or `__proto__`: NotFoundError model_not_found, and no task", async () => {
    for (const model of ["any-model-name", "whisper", "__proto__", "WHISPER-1"]) {
      const error = await refused({ model });
      expect(error).toBeInstanceOf(NotFoundError);
      expect(error.error).toMatchObject({ type: "not_found_error", code: "model_not_found", param: "model" });
      expect(error.message).toContain("GET /v1/models");
    }
  });
});

describe("language", () => {
  test("PocketSphinx recognises English only: another language is a BadRequestError naming `language`, and no task", async () => {
    const error = await refused({ model: "whisper-1", language: "de" });
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.error).toMatchObject({ type: "invalid_request_error", param: "language" });
    expect(error.message).toMatch(/sphinx.*English only, not German/);
    expect((await refused({ model: "sphinx", language: "fr" })).status).toBe(400);
  });

  test("the engine's languages are the task's; `auto` asks for none; a code that is not one is refused", async () => {
    expect(await transcribe({ model: "sphinx", language: "EN" })).toMatchObject({ engine: "sphinx", language: "en" });
    expect(await transcribe({ model: "openai", language: "de" })).toMatchObject({ engine: "openai", language: "de" });
    expect(await transcribe({ model: "whisper-1", language: "auto" })).toMatchObject({ engine: null, language: null });
    for (const language of ["english", "e", "en-US", "__proto__", "d\u0000"]) {
      const error = await refused({ language });
      expect(error.error).toMatchObject({ param: "language" });
    }
  });
});

describe("prompt", () => {
  test("becomes the task's vocabulary: a list by its commas and lines, else its words", async () => {
    expect(await transcribe({ prompt: "Anja Müller, Kubernetes\nHelm chart" })).toMatchObject({ vocabulary: ["Anja Müller", "Kubernetes", "Helm chart"] });
    expect(await transcribe({ model: "openai", prompt: "Quetzalcoatl Zyxel" })).toMatchObject({ vocabulary: ["Quetzalcoatl", "Zyxel"] });
    expect(await transcribe({ prompt: "" })).toMatchObject({ vocabulary: [] });
  });

  test("hostile: control characters, 10,000 characters of words, a word over 100 characters, built-in names", async () => {
    const controls = await transcribe({ prompt: "Anja\u0000Müller\u001b[31m\u202eKubernetes\r\n\u0007" });
    expect(controls).toMatchObject({ vocabulary: ["Anja", "Müller", "31mKubernetes"] });
    const many = await transcribe({
      prompt: Array.from({ length: 2000 }, (_, i) => `w${i}`)
        .join(" ")
        .slice(0, 10_000),
    });
    expect((many as Detail).vocabulary.length).toBe(100);
    expect(await transcribe({ prompt: `${"x".repeat(101)}, __proto__, constructor` })).toMatchObject({ vocabulary: ["__proto__", "constructor"] });
    expect((await refused({ prompt: "p".repeat(10_001) })).error).toMatchObject({ param: "prompt" });
  });
});

describe("repeated form fields", () => {
  async function post(fields: [string, string][]): Promise<{ status: number; param: string | null }> {
    const form = new FormData();
    form.append("file", new Blob([silentWav()], { type: "audio/wav" }), "speech.wav");
    for (const [name, value] of fields) form.append(name, value);
    const response = await app.request("POST", "/v1/audio/transcriptions", { token: key, body: form });
    const body = (await response.json()) as { error: { param: string | null } };
    return { status: response.status, param: body.error.param };
  }

  test("a field sent twice is refused as that field, and makes no task", async () => {
    const before = await taskIds();
    expect(
      await post([
        ["model", "whisper-1"],
        ["model", "sphinx"],
      ]),
    ).toEqual({ status: 400, param: "model" });
    for (const field of ["language", "prompt", "response_format"])
      expect(
        await post([
          ["model", "whisper-1"],
          [field, "en"],
          [field, "en"],
        ]),
      ).toEqual({ status: 400, param: field });
    expect(await taskIds()).toEqual(before);
  });
});
