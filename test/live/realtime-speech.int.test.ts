/**
 * A live session on real speech over a real port, end to end: a LibriSpeech clip (../shared/testdata) sent at 24 kHz and
 * 4x real time in 100 ms appends, as a client written for OpenAI would send it; deltas arrive while it is spoken, the
 * turns' final text is within 0.1 WER of the batch engine's on the same clip, and session.close gives session.closed with
 * a task that finishes with the session's audio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { librispeechDir } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { wordErrorRate } from "../../src/transcription/wer.ts";
import { listen, RealtimeClient } from "./realtime-client.ts";

const clipId = "1089-134686-0000";
const clip = join(librispeechDir, `${clipId}.flac`);
const ready = prerequisite(
  "ffmpeg, PocketSphinx and LibriSpeech clip 1089-134686-0000",
  Bun.which("ffmpeg") !== null && Bun.which("pocketsphinx_continuous") !== null && existsSync(clip),
  "apt-get install ffmpeg pocketsphinx pocketsphinx-en-us; put the clips under ../shared/testdata",
);

let app: TestApp;
let server: { url: string; stop(): Promise<void> };
let token = "";
let key = "";

async function decoded(rate: number): Promise<Int16Array> {
  const child = Bun.spawn(["ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-af", "apad=pad_dur=1", "-ac", "1", "-ar", String(rate), "-f", "s16le", "-"], {
    stdout: "pipe",
  });
  const bytes = await new Response(child.stdout).arrayBuffer();
  return new Int16Array(bytes, 0, bytes.byteLength >> 1);
}

/** The batch engine's text of the same clip, through the OpenAI-compatible endpoint. */
async function batchText(): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([await Bun.file(clip).arrayBuffer()], { type: "audio/flac" }), "clip.flac");
  form.append("model", "whisper-1");
  const response = await app.request("POST", "/v1/audio/transcriptions", { body: form, headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { text: string }).text;
}

beforeAll(async () => {
  if (!ready) return;
  app = await startTestApp({ ...scriptPace });
  server = listen(app);
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  token = user.token;
  const created = await app.request("POST", "/api/api-keys", { token, json: { name: "realtime speech" } });
  key = ((await created.json()) as { key: string }).key;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

describe.skipIf(!ready)("a live session on real speech", () => {
  test("at 4x real time: deltas while speaking, final text within 0.1 WER of batch, and a finished task", async () => {
    const samples = await decoded(24_000);
    // Before the session, not beside it: the batch recognition would take the CPU the live decoder needs.
    const batchWords = await batchText();
    const client = await RealtimeClient.connect(server.url, { protocols: ["realtime", `openai-insecure-api-key.${key}`] });
    await client.next("session.created");
    client.update({
      type: "transcription",
      audio: { input: { format: { type: "audio/pcm", rate: 24000 }, transcription: { model: "whisper-1", language: "en" } } },
    });
    await client.next("session.updated");
    const piece = 2400;
    for (let offset = 0; offset < samples.length; offset += piece) {
      client.append(samples.subarray(offset, offset + piece));
      await Bun.sleep(25);
    }
    // The clip ends in a second of silence, so server_vad has ended the last turn; session.close would finish an open one.
    client.send({ type: "session.close" });
    const closed = await client.next("session.closed", 1, 30_000);
    expect(client.errors()).toEqual([]);
    const deltas = client.events.filter((event) => event.type === "conversation.item.input_audio_transcription.delta");
    // At 4x on a busy machine the decoder may answer few partials before the turn ends; one is the least a client must see.
    expect(deltas.length).toBeGreaterThanOrEqual(1);
    const completed = client.events.flatMap((event) => (event.type === "conversation.item.input_audio_transcription.completed" ? [event.transcript] : []));
    const live = completed.join(" ");
    const wer = wordErrorRate(batchWords, live).wer;
    console.log(`live:  ${live}\nbatch: ${batchWords}\nWER live vs batch: ${wer.toFixed(3)}, ${deltas.length} deltas, ${completed.length} turns`);
    expect(wer).toBeLessThanOrEqual(0.1);
    expect(closed.task_id).toBeGreaterThan(0);
    let task: { status: string; duration: number } = { status: "", duration: 0 };
    for (let i = 0; i < 100 && task.status !== "finished"; i++) {
      task = (await (await app.request("GET", `/api/tasks/${closed.task_id}`, { token })).json()) as typeof task;
      if (task.status !== "finished") await Bun.sleep(100);
    }
    expect(task.status).toBe("finished");
    const metrics = await (await app.request("GET", "/metrics")).text();
    expect(Number(metrics.match(/^scribe_live_partial_latency_seconds_count (\S+)$/m)?.[1])).toBe(deltas.length);
    expect(task.duration).toBe(Math.ceil(samples.length / 24_000));
  }, 60_000);
});
