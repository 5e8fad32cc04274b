/**
 * The client events of a live session over a real port: `session.update` round trip, and every bad event answered
 * with an `error` event in OpenAI's shape (quoting the client's event_id) while the session goes on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { SessionUpdateEvent } from "openai/resources/realtime/realtime";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { listen, RealtimeClient } from "./realtime-client.ts";

let app: TestApp;
let server: { url: string; stop(): Promise<void> };
let key = "";
let client: RealtimeClient;

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
  server = listen(app);
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "realtime" } });
  key = ((await created.json()) as { key: string }).key;
  client = await RealtimeClient.connect(server.url, { headers: { authorization: `Bearer ${key}` } });
  await client.next("session.created");
});
afterAll(async () => {
  client?.close();
  await server?.stop();
  await app?.close();
});

test("session.update is answered with session.updated showing the new configuration", async () => {
  const update = {
    type: "session.update",
    event_id: "evt_update_1",
    session: {
      type: "transcription",
      audio: {
        input: {
          format: { type: "audio/pcm", rate: 24000 },
          transcription: { model: "gpt-4o-transcribe", language: "en", prompt: "Kubernetes, Helm" },
          turn_detection: { type: "server_vad", threshold: 0.6, prefix_padding_ms: 200, silence_duration_ms: 400 },
        },
      },
      include: ["item.input_audio_transcription.logprobs"],
    },
  } satisfies SessionUpdateEvent;
  client.send(update);
  const updated = await client.next("session.updated");
  expect(updated.session.type).toBe("transcription");
  if (updated.session.type !== "transcription") return;
  expect(updated.session.audio?.input?.transcription).toEqual({ model: "gpt-4o-transcribe", language: "en", prompt: "Kubernetes, Helm" });
  expect(updated.session.audio?.input?.turn_detection).toEqual({ type: "server_vad", threshold: 0.6, prefix_padding_ms: 200, silence_duration_ms: 400 });
  expect(updated.session.audio?.input?.format).toEqual({ type: "audio/pcm", rate: 24000 });
  // 16 kHz too, and turn detection off (the client commits).
  client.send({
    type: "session.update",
    session: { type: "transcription", audio: { input: { format: { type: "audio/pcm", rate: 16000 as 24000 }, turn_detection: null } } },
  });
  const second = await client.next("session.updated", 2);
  if (second.session.type !== "transcription") return;
  expect(second.session.audio?.input?.format).toEqual({ type: "audio/pcm", rate: 16000 as 24000 });
  expect(second.session.audio?.input?.turn_detection).toBeNull();
});

const base64 = Buffer.from(new Uint8Array(640)).toString("base64");
const bad: [name: string, frame: string | Uint8Array, code: string, param: string | null][] = [
  ["not JSON", "{not json", "invalid_json", null],
  ["a JSON array", "[1,2]", "invalid_event", null],
  ["a binary frame", new Uint8Array([1, 2, 3]), "invalid_event", null],
  ["an unknown type", JSON.stringify({ type: "response.create", event_id: "e1" }), "invalid_value", "type"],
  ["no type", JSON.stringify({ event_id: "e1" }), "invalid_value", "type"],
  ["a missing field", JSON.stringify({ type: "input_audio_buffer.append", event_id: "e1" }), "missing_required_parameter", "audio"],
  ["an extra field", JSON.stringify({ type: "input_audio_buffer.commit", event_id: "e1", extra: 1 }), "unknown_parameter", "extra"],
  ["bad base64", JSON.stringify({ type: "input_audio_buffer.append", event_id: "e1", audio: "!!!!" }), "invalid_audio", "audio"],
  ["an odd byte count", JSON.stringify({ type: "input_audio_buffer.append", event_id: "e1", audio: "AA==" }), "invalid_audio", "audio"],
  [
    "pcmu",
    JSON.stringify({ type: "session.update", event_id: "e1", session: { type: "transcription", audio: { input: { format: { type: "audio/pcmu" } } } } }),
    "invalid_value",
    "session.audio.input.format.type",
  ],
  [
    "a rate of 8000",
    JSON.stringify({
      type: "session.update",
      event_id: "e1",
      session: { type: "transcription", audio: { input: { format: { type: "audio/pcm", rate: 8000 } } } },
    }),
    "invalid_value",
    "session.audio.input.format.rate",
  ],
  ["a realtime session", JSON.stringify({ type: "session.update", event_id: "e1", session: { type: "realtime" } }), "invalid_value", "session.type"],
  [
    "an unknown model",
    JSON.stringify({ type: "session.update", event_id: "e1", session: { type: "transcription", audio: { input: { transcription: { model: "nope" } } } } }),
    "model_not_found",
    "session.audio.input.transcription.model",
  ],
  [
    "a language PocketSphinx does not know",
    JSON.stringify({ type: "session.update", event_id: "e1", session: { type: "transcription", audio: { input: { transcription: { language: "de" } } } } }),
    "unsupported_language",
    "session.audio.input.transcription.language",
  ],
  ["a __proto__ key", '{"type":"input_audio_buffer.commit","event_id":"e1","__proto__":{"x":1}}', "unknown_parameter", "__proto__"],
  ["deep JSON", `${"[".repeat(100_000)}${"]".repeat(100_000)}`, "invalid_event", null],
  ["a frame of 10 MB", JSON.stringify({ type: "input_audio_buffer.append", event_id: "e1", audio: "A".repeat(10_000_000) }), "event_too_large", null],
  ["a commit with nothing appended", JSON.stringify({ type: "input_audio_buffer.commit", event_id: "e1" }), "input_audio_buffer_commit_empty", null],
  ["an append too large", JSON.stringify({ type: "input_audio_buffer.append", event_id: "e1", audio: "AAAA".repeat(300_000) }), "event_too_large", null],
];

describe("every bad event gets an error event, and the session goes on", () => {
  for (const [name, frame, code, param] of bad) {
    test(name, async () => {
      const before = client.errors().length;
      client.sendRaw(frame);
      const error = await client.next("error", before + 1);
      expect(error.error).toMatchObject({ type: "invalid_request_error", code, param });
      if (typeof frame === "string" && frame.includes('"event_id":"e1"') && code !== "event_too_large" && code !== "invalid_json")
        expect(error.error.event_id).toBe("e1");
      // Still open, and still answering.
      const updates = client.events.filter((event) => event.type === "session.updated").length;
      client.send({ type: "session.update", session: { type: "transcription" } });
      await client.next("session.updated", updates + 1);
    });
  }
  test("input_audio_buffer.clear is answered with cleared", async () => {
    client.send({ type: "input_audio_buffer.clear" });
    await client.next("input_audio_buffer.cleared");
    expect(base64.length).toBeGreaterThan(0);
  });
});
