/**
 * The OpenAI-compatible adapters (speech recognition and chat) against a small local HTTP server that
 * answers in the OpenAI response format: this tests our adapters and the pipeline around them, not a
 * stand-in for the real service.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Server } from "bun";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, waitForStatus, type Json } from "../support/tasks.ts";
import { until } from "../support/eventually.ts";
import { joinedMp3, spoken } from "../support/media-fixtures.ts";

type Seen = {
  path: string;
  authorization: string | null;
  model: string | null;
  responseFormat: string | null;
  file?: { type: string; bytes: Uint8Array };
  body?: Json;
};
const seen: Seen[] = [];
const failing = { transcription: false, chat: false };

let server: Server<undefined>;
let app: TestApp;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const authorization = request.headers.get("authorization");
      if (path === "/v1/audio/transcriptions") {
        const form = await request.formData();
        const file = form.get("file") as File;
        seen.push({
          path,
          authorization,
          model: form.get("model") as string,
          responseFormat: form.get("response_format") as string,
          file: { type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) },
        });
        if (failing.transcription) return Response.json({ error: { message: "The model is overloaded.", type: "server_error" } }, { status: 500 });
        return Response.json({
          task: "transcribe",
          language: "english",
          duration: 2.5,
          text: "Hello there. General Kenobi!",
          segments: [
            { id: 0, start: 0.2, end: 1.0, text: " Hello there.", avg_logprob: -0.2 },
            { id: 1, start: 1.3, end: 2.2, text: " General Kenobi!", avg_logprob: -0.4 },
          ],
          words: [
            { word: "Hello", start: 0.2, end: 0.5 },
            { word: "there", start: 0.55, end: 1.0 },
            { word: "General", start: 1.3, end: 1.7 },
            { word: "Kenobi", start: 1.75, end: 2.2 },
          ],
        });
      }
      if (path === "/v1/chat/completions") {
        const body = (await request.json()) as Json & { messages: { role: string; content: string }[] };
        seen.push({ path, authorization, model: body.model as string, responseFormat: null, body });
        if (failing.chat) return Response.json({ error: { message: "Rate limit reached." } }, { status: 429 });
        const mindMap = body.messages[0]!.content.includes("mind map");
        const content = mindMap ? "```markdown\n# Greetings\n## Meeting\n- Hello there\n```" : "Two people greet each other.";
        return Response.json({ id: "c1", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }] });
      }
      return new Response("not found", { status: 404 });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  app = await startTestApp({
    ...scriptPace,
    TRANSCRIPTION_ENGINE: "openai",
    TRANSCRIPTION_OPENAI_URL: url,
    TRANSCRIPTION_OPENAI_KEY: "sk-transcribe",
    TRANSCRIPTION_OPENAI_MODEL: "whisper-large",
    SUMMARY_OPENAI_URL: `${url}/v1`,
    SUMMARY_OPENAI_KEY: "sk-chat",
    SUMMARY_OPENAI_MODEL: "small-chat",
  });
});
afterAll(async () => {
  await app?.close();
  server?.stop(true);
});

/** Speech stored under the user's own upload prefix (a task reads only its user's media). */
async function uploadSpeech(user: { id: number }): Promise<string> {
  const media = await joinedMp3([await spoken("Hello there, general Kenobi, how are you doing on this fine day?")], 0.5);
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/speech.mp3`;
  await app.adapters.blobs.put(key, media.bytes, { contentType: "audio/mpeg" });
  return key;
}

const historyTypes = async (token: string, id: number) =>
  (await json<{ type: string; data: Json }[]>(await app.request("GET", `/api/tasks/${id}/history`, { token }))).map((e) => e.type);

describe("OpenAI-compatible speech recognition and summary", () => {
  test("a chunk goes to /v1/audio/transcriptions as 16 kHz mono WAV; the answer becomes punctuated, timed segments; the chat endpoint writes summary and mind map", async () => {
    seen.length = 0;
    const user = await app.register();
    const id = await createTask(app, user, { path: await uploadSpeech(user) });
    const task = await waitForStatus(app, user, id, "finished", 30_000);
    const request = seen.find((s) => s.path === "/v1/audio/transcriptions")!;
    expect(request).toMatchObject({ authorization: "Bearer sk-transcribe", model: "whisper-large", responseFormat: "verbose_json" });
    const header = new DataView(request.file!.bytes.buffer, request.file!.bytes.byteOffset);
    expect(new TextDecoder().decode(request.file!.bytes.subarray(0, 4))).toBe("RIFF");
    expect(header.getUint32(24, true)).toBe(16_000);
    expect(header.getUint16(22, true)).toBe(1);

    const segments = task.segments as { start: number; end: number; text: string; tokens: string[] }[];
    expect(segments.map((s) => s.text)).toEqual(["Hello there.", "General Kenobi!"]);
    expect(segments[1]!.tokens).toEqual(["General", "Kenobi!"]);
    // Times are the server's, moved to where the chunk starts in the media (it starts at 0 here).
    expect(segments.map((s) => [s.start, s.end])).toEqual([
      [200, 1000],
      [1300, 2200],
    ]);
    expect(task.quality).toBe(4); // exp(-0.2), exp(-0.4) → mean 0.74
    expect(task.summary).toBe("Two people greet each other.");
    expect(task.mindmap).toBe("# Greetings\n## Meeting\n- Hello there");
    const chats = seen.filter((s) => s.path === "/v1/chat/completions");
    expect(chats).toHaveLength(2);
    expect(chats[0]).toMatchObject({ authorization: "Bearer sk-chat", model: "small-chat" });
    expect(JSON.stringify(chats[0]!.body)).toContain("Hello there.");
  }, 40_000);

  test("the recognition service failing: the task fails with its answer as the reason, after three attempts", async () => {
    seen.length = 0;
    failing.transcription = true;
    try {
      const user = await app.register();
      const id = await createTask(app, user, { path: await uploadSpeech(user) });
      const task = await waitForStatus(app, user, id, "failed", 30_000);
      expect(task.failure_reason).toBe("The speech recognition service answered 500: The model is overloaded.");
      expect(seen.filter((s) => s.path === "/v1/audio/transcriptions")).toHaveLength(3);
    } finally {
      failing.transcription = false;
    }
  }, 40_000);

  test("the summary service failing: the task finishes with its transcript, the failure is recorded, refresh-summary answers 502 and later succeeds", async () => {
    failing.chat = true;
    const user = await app.register();
    let id: number;
    try {
      id = await createTask(app, user, { path: await uploadSpeech(user) });
      const task = await waitForStatus(app, user, id, "finished", 30_000);
      expect(task.segments).toHaveLength(2);
      expect(task).toMatchObject({ summary: null, mindmap: null });
      // Recorded by its own command after the task finished: it may reach the history a moment after the status.
      await until("the summary's failure in the task's history", async () => (await historyTypes(user.token, id)).includes("SummaryFailed"));
      const refused = await app.request("GET", `/api/tasks/${id}/refresh-summary`, { token: user.token });
      expect(refused.status).toBe(502);
      expect((await json<{ message: string }>(refused)).message).toBe(
        "Summary and mind map could not be made: The summary service answered 429: Rate limit reached.",
      );
    } finally {
      failing.chat = false;
    }
    const refreshed = await app.request("GET", `/api/tasks/${id}/refresh-summary`, { token: user.token });
    expect(refreshed.status).toBe(200);
    expect(await refreshed.json()).toEqual({ summary: "Two people greet each other.", mindmap: "# Greetings\n## Meeting\n- Hello there" });
    expect((await historyTypes(user.token, id)).filter((t) => t === "SummaryFailed")).toHaveLength(2);
  }, 60_000);
});
