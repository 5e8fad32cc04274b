// Live transcription end to end, through the service's WebSocket (GET /v1/realtime) as a client written for OpenAI's
// Realtime API drives it: each LibriSpeech clip of ../shared/testdata (and jfk.wav) sent at 24 kHz in 100 ms appends at
// real-time pace, with server_vad cutting turns. Per session: the first delta after the first spoken audio (from when
// the append holding the first speech was sent), the final text after the end of each turn (from speech_stopped, when
// server_vad has heard the 500 ms of silence that end it, to completed), deltas' spacing while a turn goes on,
// and the WER of the joined finals against the batch engine's text of the same clip. Then four sessions at once at real
// time, each sending every clip in turn: finals after each turn's end, and the CPU each session costs (the whole
// process, decoder threads included, over wall time, per session).
// `bun bench/live-realtime.bench.ts`; quick mode: one clip, and one clip per session for the four at once.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SphinxEngine } from "../src/transcription/engines/sphinx.ts";
import { wavHeader } from "../src/transcription/wav.ts";
import { wordErrorRate } from "../src/transcription/wer.ts";
import { startTestApp } from "../test/support/test-app.ts";
import { scriptPace } from "../test/support/limits.ts";
import { listen, RealtimeClient } from "../test/live/realtime-client.ts";
import { figure, skip } from "./support/figures.ts";
import { librispeechDir } from "./support/long-recording.ts";
import { sized } from "./support/quick.ts";
import { percentile } from "./support/stats.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const model = "/usr/share/pocketsphinx/model/en-us";
const sphinx = { binary: "pocketsphinx_continuous", hmm: `${model}/en-us`, lm: `${model}/en-us.lm.bin`, dict: `${model}/cmudict-en-us.dict` };
if (!existsSync(sphinx.lm) || !Bun.which(sphinx.binary)) skip("PocketSphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)");
if (!existsSync(join(librispeechDir, "transcripts.txt"))) skip(`no LibriSpeech clips at ${librispeechDir}`);

type Clip = { name: string; at24k: Int16Array; batch: string };
type Run = { firstDeltaMs: number; finalsMs: number[]; deltaGapsMs: number[]; text: string };

const pieceMs = 100;
const work = mkdtempSync(join(tmpdir(), "scribe-live-realtime-"));

async function pcm(file: string, rate: number): Promise<Int16Array> {
  const child = Bun.spawn(["ffmpeg", "-nostdin", "-v", "error", "-i", file, "-af", "apad=pad_dur=1", "-ar", String(rate), "-ac", "1", "-f", "s16le", "-"], {
    stdout: "pipe",
  });
  const bytes = await new Response(child.stdout).arrayBuffer();
  return new Int16Array(bytes, 0, bytes.byteLength >> 1);
}

async function loadClip(name: string, file: string): Promise<Clip> {
  const [at24k, at16k] = await Promise.all([pcm(file, 24_000), pcm(file, 16_000)]);
  const wav = join(work, `${name}.wav`);
  const bytes = new Uint8Array(at16k.buffer, at16k.byteOffset, at16k.byteLength);
  writeFileSync(wav, Buffer.concat([wavHeader(bytes.length), bytes]));
  const { words } = await new SphinxEngine(sphinx).recognize(wav, { durationMs: 0 });
  return { name, at24k, batch: words.map((word) => word.text).join(" ") };
}

/** Sends the clips one after another at real time on one session and times what comes back. */
async function session(url: string, key: string, clips: Clip[]): Promise<Run> {
  const client = await RealtimeClient.connect(url, { headers: { authorization: `Bearer ${key}` } });
  await client.next("session.created");
  const step = (24_000 * pieceMs) / 1000;
  /** When each append was sent, by the ms of audio it ends at. */
  const sentAt: number[] = [];
  const arrival = new Map<object, number>();
  client.socket.addEventListener("message", () => arrival.set(client.events.at(-1)!, performance.now()));
  const started = performance.now();
  let i = 0;
  for (const clip of clips) {
    for (let at = 0; at < clip.at24k.length; at += step, i++) {
      const due = started + i * pieceMs;
      if (due > performance.now()) await Bun.sleep(due - performance.now());
      client.append(clip.at24k.subarray(at, at + step));
      sentAt.push(performance.now());
    }
  }
  const turns = client.events.filter((event) => event.type === "input_audio_buffer.speech_started").length;
  for (
    let wait = 0;
    wait < 200 && client.events.filter((event) => event.type === "conversation.item.input_audio_transcription.completed").length < turns;
    wait++
  ) {
    await Bun.sleep(50);
  }
  const sentBy = (audioMs: number) => sentAt[Math.min(sentAt.length - 1, Math.floor(audioMs / pieceMs))]!;
  const finalsMs: number[] = [];
  const deltaGapsMs: number[] = [];
  let firstDeltaMs = Number.NaN;
  let previousDeltaAt = Number.NaN;
  for (const event of client.events) {
    const at = arrival.get(event)!;
    if (event.type === "input_audio_buffer.speech_started") previousDeltaAt = Number.NaN;
    if (event.type === "conversation.item.input_audio_transcription.delta") {
      if (Number.isNaN(firstDeltaMs)) {
        const started = client.events.find((e) => e.type === "input_audio_buffer.speech_started");
        if (started?.type === "input_audio_buffer.speech_started") firstDeltaMs = at - sentBy(started.audio_start_ms + 300);
      }
      if (!Number.isNaN(previousDeltaAt)) deltaGapsMs.push(at - previousDeltaAt);
      previousDeltaAt = at;
    }
    if (event.type === "input_audio_buffer.speech_stopped") {
      const completed = client.events.find((e) => e.type === "conversation.item.input_audio_transcription.completed" && e.item_id === event.item_id);
      if (completed) finalsMs.push(arrival.get(completed)! - at);
    }
  }
  client.send({ type: "session.close" });
  await client.next("session.closed", 1, 30_000);
  // Every turn's final, the one session.close finished included.
  const finals = client.events.flatMap((event) => (event.type === "conversation.item.input_audio_transcription.completed" ? [event] : []));
  return { firstDeltaMs, finalsMs, deltaGapsMs, text: finals.map((event) => event.transcript).join(" ") };
}

const transcripts = readFileSync(join(librispeechDir, "transcripts.txt"), "utf8");
const ids = transcripts
  .split("\n")
  .map((line) => line.split(" ")[0]!)
  .filter((id) => id !== "" && existsSync(join(librispeechDir, `${id}.flac`)));
const files = [...ids.map((id) => [id, join(librispeechDir, `${id}.flac`)] as const)];
const jfk = join(librispeechDir, "..", "jfk.wav");
if (existsSync(jfk)) files.push(["jfk", jfk]);
const clips = await Promise.all(sized(files, files.slice(0, 1)).map(([name, file]) => loadClip(name, file)));

const app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", LIVE_SESSIONS_PER_ACCOUNT: "8" });
const server = listen(app);
const user = await app.register();
await app.setPlan(user.id, "max");
const key = ((await (await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "bench" } })).json()) as { key: string }).key;

try {
  const firstDeltas: number[] = [];
  const finals: number[] = [];
  const gaps: number[] = [];
  const wers: number[] = [];
  for (const clip of clips) {
    const run = await session(server.url, key, [clip]);
    const wer = wordErrorRate(clip.batch, run.text).wer;
    console.log(
      `${clip.name}: first delta ${run.firstDeltaMs.toFixed(0)} ms, finals ${run.finalsMs.map((ms) => ms.toFixed(0)).join("/")} ms, ` +
        `WER live vs batch ${wer.toFixed(3)}`,
    );
    firstDeltas.push(run.firstDeltaMs);
    finals.push(...run.finalsMs);
    gaps.push(...run.deltaGapsMs);
    wers.push(wer);
  }
  figure("first delta after the first spoken audio, p50", percentile(firstDeltas, 50), "ms", { op: "<=", value: 500 });
  figure("first delta after the first spoken audio, p95", percentile(firstDeltas, 95), "ms", { op: "<=", value: 1000 });
  figure("final text after the end of a turn (speech_stopped to completed), p50", percentile(finals, 50), "ms", { op: "<=", value: 1000 });
  figure("final text after the end of a turn (speech_stopped to completed), p95", percentile(finals, 95), "ms");
  figure("time between deltas while a turn goes on, p50", percentile(gaps, 50), "ms");
  figure("WER live vs batch, mean over the clips", wers.reduce((sum, wer) => sum + wer, 0) / wers.length, "", { op: "<=", value: 0.1 });

  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  const runs = await Promise.all(Array.from({ length: 4 }, () => session(server.url, key, sized(clips, clips.slice(0, 1)))));
  const cpuSeconds = (process.cpuUsage(cpuBefore).user + process.cpuUsage(cpuBefore).system) / 1e6;
  const wallSeconds = (performance.now() - wallBefore) / 1000;
  const together = runs.flatMap((run) => run.finalsMs);
  figure("four sessions at real time: final text after the end of a turn, p50", percentile(together, 50), "ms", { op: "<=", value: 1000 });
  figure("four sessions at real time: final text after the end of a turn, p95", percentile(together, 95), "ms");
  figure("four sessions at real time: CPU per session", cpuSeconds / wallSeconds / 4, "cores");
  figure(
    "four sessions at real time: WER live vs batch, mean",
    runs.map((run) => wordErrorRate(clips.map((c) => c.batch).join(" "), run.text).wer).reduce((a, b) => a + b, 0) / 4,
    "",
  );
} finally {
  await server.stop();
  await app.close();
  rmSync(work, { recursive: true, force: true });
}
