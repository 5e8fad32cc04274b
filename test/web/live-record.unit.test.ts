/**
 * The live captions' logic without a browser (src/web/app/live): the microphone's samples turned into 16 kHz
 * PCM16 (the worklet's downsampler: length, pitch and level kept, the band above 8 kHz removed, the same whatever
 * the blocks), their bytes and base64, the events sent (type-checked against the `openai` package's Realtime
 * types) and read, the captions assembled from deltas and completed turns, and what Stop leads to as the session ends.
 */
import { describe, expect, test } from "bun:test";
import type {
  ConversationItemInputAudioTranscriptionCompletedEvent,
  ConversationItemInputAudioTranscriptionDeltaEvent,
  InputAudioBufferAppendEvent,
  InputAudioBufferCommitEvent,
  RealtimeErrorEvent,
  SessionUpdateEvent,
} from "openai/resources/realtime/realtime";
import { captionLines, keptTurns, nextCaptions, noCaptions, type Captions } from "../../src/web/app/live/captions.ts";
import { Downsampler, pcm16Base64, pcm16Bytes, toPcm16 } from "../../src/web/app/live/pcm.ts";
import { afterStop, type StoppedRecording } from "../../src/web/app/record/after-stop.ts";
import { keptSaid, liveFallbackSaid } from "../../src/web/app/record/said.ts";
import { appendEvent, commitEvent, parseServerEvent, realtimeUrl, sessionUpdate, type ServerEvent } from "../../src/web/app/live/realtime-events.ts";

const tone = (frequency: number, rate: number, seconds: number, amplitude = 0.5) =>
  Float32Array.from({ length: Math.round(rate * seconds) }, (_, i) => amplitude * Math.sin((2 * Math.PI * frequency * i) / rate));

/** Pushes `input` in blocks of `block` samples (an AudioWorklet's render quantum is 128) and joins the output. */
function downsampled(input: Float32Array, rate: number, block: number): Int16Array {
  const downsampler = new Downsampler(rate);
  const parts: Int16Array[] = [];
  for (let at = 0; at < input.length; at += block) parts.push(downsampler.push(input.subarray(at, at + block)));
  const out = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const rms = (samples: Int16Array, from = 0) => {
  let sum = 0;
  for (let i = from; i < samples.length; i++) sum += (samples[i]! / 32768) ** 2;
  return Math.sqrt(sum / (samples.length - from));
};

/** The frequency of a steady tone from its upward zero crossings. */
function frequencyOf(samples: Int16Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 1; i < samples.length; i++) if (samples[i - 1]! < 0 && samples[i]! >= 0) crossings.push(i);
  return ((crossings.length - 1) * rate) / (crossings.at(-1)! - crossings[0]!);
}

describe("the worklet's downsampling to 16 kHz PCM16", () => {
  for (const rate of [48_000, 44_100]) {
    test(`${rate} Hz: a second gives 16,000 samples (but for the filter's delay), its pitch and level kept`, () => {
      const out = downsampled(tone(440, rate, 1), rate, 128);
      expect(out.length).toBeGreaterThan(16_000 - 40);
      expect(out.length).toBeLessThanOrEqual(16_000);
      expect(frequencyOf(out.subarray(100), 16_000)).toBeCloseTo(440, 0);
      expect(rms(out, 100)).toBeCloseTo(0.5 / Math.SQRT2, 2);
    });
  }

  test("what lies above 8 kHz (which 16 kHz cannot carry) is removed rather than folded into speech", () => {
    for (const [rate, frequency] of [
      [48_000, 12_000],
      [48_000, 9000],
      [44_100, 10_000],
    ] as const)
      expect(rms(downsampled(tone(frequency, rate, 1), rate, 128), 100)).toBeLessThan(0.01);
    // 5 kHz, under the edge, passes whole.
    expect(rms(downsampled(tone(5000, 48_000, 1), 48_000, 128), 100)).toBeCloseTo(0.5 / Math.SQRT2, 2);
  });

  test("the same samples whatever the blocks they arrive in, and no drift over two minutes at 44.1 kHz", () => {
    const input = tone(300, 44_100, 2);
    const whole = downsampled(input, 44_100, input.length);
    expect(downsampled(input, 44_100, 128)).toEqual(whole);
    expect(downsampled(input, 44_100, 1000)).toEqual(whole);
    const downsampler = new Downsampler(44_100);
    const block = new Float32Array(44_100);
    let made = 0;
    for (let second = 0; second < 120; second++) made += downsampler.push(block).length;
    expect(120 * 16_000 - made).toBeGreaterThanOrEqual(0);
    expect(120 * 16_000 - made).toBeLessThan(40);
  });

  test("16 kHz in is 16 kHz out, sample for sample", () => {
    const input = Float32Array.from([0, 0.5, -0.5, 1, -1, 0.25]);
    const downsampler = new Downsampler(16_000);
    const out = [...downsampler.push(input), ...downsampler.push(Float32Array.of(0, 0))];
    expect(out.slice(0, 6)).toEqual([0, 16384, -16384, 32767, -32768, 8192]);
  });

  test("rates that are not rates are refused", () => {
    expect(() => new Downsampler(0)).toThrow(RangeError);
    expect(() => new Downsampler(Number.NaN)).toThrow(RangeError);
  });
});

describe("PCM16 bytes", () => {
  test("full scale and beyond clip; bytes little-endian; base64 as the append event carries it", () => {
    expect([2, -2, 1, -1, 0].map(toPcm16)).toEqual([32767, -32768, 32767, -32768, 0]);
    const samples = Int16Array.of(1, -2, 0x1234, -32768);
    expect([...pcm16Bytes(samples)]).toEqual([0x01, 0x00, 0xfe, 0xff, 0x34, 0x12, 0x00, 0x80]);
    expect(pcm16Base64(samples)).toBe(Buffer.from(pcm16Bytes(samples)).toString("base64"));
    // Larger than one String.fromCharCode slice.
    const long = Int16Array.from({ length: 20_000 }, (_, i) => (i * 37) % 65_536);
    expect(Buffer.from(pcm16Base64(long), "base64")).toEqual(Buffer.from(pcm16Bytes(long)));
  });
});

describe("the events sent", () => {
  test("session.update: a transcription session of 16 kHz PCM, server VAD, speakers asked with the diarizing model", () => {
    const update = sessionUpdate(false);
    // OpenAI's types, but for the rate: OpenAI takes 24 kHz only, Scribe 16 kHz too (what its engines work at).
    const asOpenAi: SessionUpdateEvent = {
      ...update,
      session: { ...update.session, audio: { input: { ...update.session.audio.input, format: { type: "audio/pcm", rate: 24_000 } } } },
    };
    expect(asOpenAi.type).toBe("session.update");
    expect(update.session.audio.input).toEqual({
      format: { type: "audio/pcm", rate: 16_000 },
      transcription: { model: "whisper-1" },
      turn_detection: { type: "server_vad" },
    });
    expect(sessionUpdate(true).session.audio.input.transcription.model).toBe("gpt-4o-transcribe-diarize");
    const append: InputAudioBufferAppendEvent = appendEvent("AAA=");
    const commit: InputAudioBufferCommitEvent = commitEvent;
    expect([append, commit]).toEqual([{ type: "input_audio_buffer.append", audio: "AAA=" }, { type: "input_audio_buffer.commit" }]);
  });

  test("the socket's address: this origin, ws or wss as the page", () => {
    expect(realtimeUrl({ protocol: "http:", host: "127.0.0.1:3000" })).toBe("ws://127.0.0.1:3000/v1/realtime?intent=transcription");
    expect(realtimeUrl({ protocol: "https:", host: "scribe.example" })).toBe("wss://scribe.example/v1/realtime?intent=transcription");
  });
});

const delta = (item_id: string, text: string): ConversationItemInputAudioTranscriptionDeltaEvent => ({
  type: "conversation.item.input_audio_transcription.delta",
  event_id: "event_1",
  item_id,
  content_index: 0,
  delta: text,
});
const completed = (item_id: string, transcript: string): ConversationItemInputAudioTranscriptionCompletedEvent => ({
  type: "conversation.item.input_audio_transcription.completed",
  event_id: "event_2",
  item_id,
  content_index: 0,
  transcript,
  usage: { type: "duration", seconds: 2 },
});
/** Through the socket's text, as the page reads it. */
const read = (event: object): ServerEvent => {
  const parsed = parseServerEvent(JSON.stringify(event));
  if (!parsed) throw new Error(`not read: ${JSON.stringify(event)}`);
  return parsed;
};
const fold = (events: object[], from: Captions = noCaptions) => events.map(read).reduce(nextCaptions, from);

describe("the events read", () => {
  test("OpenAI's shapes, Scribe's session.closed; anything else (not JSON, not an object, unknown, malformed) ignored", () => {
    expect(read(delta("item_1", "he "))).toEqual({ type: "conversation.item.input_audio_transcription.delta", itemId: "item_1", delta: "he " });
    const error: RealtimeErrorEvent = { type: "error", event_id: "e", error: { type: "invalid_request_error", code: "session_limit", message: "Too many" } };
    expect(read(error)).toEqual({ type: "error", message: "Too many", code: "session_limit" });
    expect(read({ type: "error" })).toMatchObject({ type: "error", message: "The live transcription failed." });
    expect(read({ type: "session.closed", task_id: 42 })).toEqual({ type: "session.closed", taskId: 42 });
    expect(read({ type: "session.closed", task_id: "42" })).toEqual({ type: "session.closed", taskId: null });
    for (const message of ["", "{", "null", "[]", '"session.created"', '{"type":"response.done"}', '{"type":"__proto__"}', new ArrayBuffer(4)])
      expect(parseServerEvent(message)).toBeNull();
    expect(parseServerEvent(JSON.stringify({ type: "conversation.item.input_audio_transcription.delta", item_id: 5, delta: "x" }))).toBeNull();
    expect(parseServerEvent('{"type":"conversation.item.input_audio_transcription.completed","item_id":"a","__proto__":{"transcript":"x"}}')).toBeNull();
  });
});

describe("the captions", () => {
  test("a turn's deltas show as they come; its completed text replaces them; turns keep the order they began in", () => {
    let captions = fold([delta("item_1", "he could"), delta("item_1", " wait")]);
    expect(captionLines(captions)).toEqual({ finished: [], partial: "he could wait" });
    captions = fold([delta("item_2", "no"), completed("item_1", "He could wait no longer.")], captions);
    expect(captionLines(captions)).toEqual({ finished: [{ itemId: "item_1", text: "He could wait no longer.", final: true }], partial: "no" });
    // A late delta for a finished turn changes nothing; a turn that was only noise goes.
    captions = fold([delta("item_1", " again"), completed("item_2", "  ")], captions);
    expect(captionLines(captions)).toEqual({ finished: [{ itemId: "item_1", text: "He could wait no longer.", final: true }], partial: "" });
    // Events that are not captions change nothing.
    expect(fold([{ type: "session.updated" }, { type: "error", error: { message: "x" } }], captions)).toBe(captions);
  });

  test("a long session keeps only its latest turns on the page", () => {
    const events = Array.from({ length: keptTurns + 5 }, (_, i) => completed(`item_${i}`, `turn ${i}`));
    const { finished } = captionLines(fold(events));
    expect(finished).toHaveLength(keptTurns);
    expect(finished.at(-1)?.text).toBe(`turn ${keptTurns + 4}`);
  });
});

describe("what Stop leads to", () => {
  const stopped = (streaming: boolean, bytes = 4000): StoppedRecording => ({
    recorded: {
      body: new Blob([new Uint8Array(bytes)], { type: "audio/webm;codecs=opus" }),
      type: "audio/webm;codecs=opus",
      startedAt: new Date(),
      seconds: 7,
    },
    accepted: { formats: [{ extension: "webm", content_types: ["audio/webm"] }], max_size: 10_000 },
    reason: "stop",
    maxSeconds: null,
    streaming,
  });

  test("the task the session named opens, and the recording is not uploaded, even one the server could not take", () => {
    expect(afterStop({ kind: "task", taskId: 7 }, stopped(true))).toEqual({ kind: "open", taskId: 7 });
    expect(afterStop({ kind: "task", taskId: 7 }, stopped(false, 20_000))).toEqual({ kind: "open", taskId: 7 });
  });

  test("a session that may have kept the audio without saying so: the recording kept in the page, never uploaded by itself", () => {
    for (const why of ["timeout", "dropped"] as const) {
      const next = afterStop({ kind: "unknown", why }, stopped(true));
      expect(next.kind).toBe("keep");
      if (next.kind !== "keep") continue;
      expect(next.file.name).toMatch(/^Recording .*\.webm$/);
      expect(next.said).toContain(why === "timeout" ? "did not answer within 30 seconds" : "was cut off");
      expect(keptSaid(next.said, false)).toEndWith("The recording is still in this page: upload it, or discard it.");
    }
  });

  test("nothing kept (no session, refused, or the server said so): the recording uploaded, as said", () => {
    expect(afterStop({ kind: "nothing" }, stopped(true))).toMatchObject({ kind: "upload", said: liveFallbackSaid });
    expect(afterStop({ kind: "nothing" }, stopped(false))).toMatchObject({ kind: "upload", said: "Recorded 7 seconds. Uploading…" });
    expect(afterStop({ kind: "nothing" }, stopped(false, 20_000))).toMatchObject({ kind: "refused" });
  });
});
