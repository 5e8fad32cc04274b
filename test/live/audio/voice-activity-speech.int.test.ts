import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { VoiceActivity, type VoiceEvent } from "../../../src/live/audio/voice-activity.ts";
import { librispeechDir, sharedTestdata } from "../../support/media-fixtures.ts";
import { prerequisite } from "../../support/prerequisites.ts";

/** server_vad on real speech (../shared/testdata): speech starts near the first word, and stops after the last. */

const jfk = join(sharedTestdata, "jfk.wav");
const clip = join(librispeechDir, "1089-134691-0001.flac");
const haveFfmpeg = prerequisite("ffmpeg", Bun.which("ffmpeg") !== null, "apt-get install ffmpeg");
const haveClips = prerequisite("jfk.wav and LibriSpeech clip 1089-134691-0001", existsSync(jfk) && existsSync(clip), "put them under ../shared/testdata");

/** The file as 16 kHz mono s16le, followed by a second of silence (LibriSpeech clips end right after the last word). */
async function decoded(file: string, fromSeconds = 0): Promise<Int16Array> {
  const child = Bun.spawn(
    ["ffmpeg", "-nostdin", "-v", "error", "-ss", String(fromSeconds), "-i", file, "-af", "apad=pad_dur=1", "-ac", "1", "-ar", "16000", "-f", "s16le", "-"],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [bytes, code] = await Promise.all([new Response(child.stdout).arrayBuffer(), child.exited]);
  if (code !== 0) throw new Error(`ffmpeg could not decode ${file}: ${await new Response(child.stderr).text()}`);
  return new Int16Array(bytes, 0, bytes.byteLength >> 1);
}

/** Fed in 20 ms pieces, as a browser's AudioWorklet would send them. */
function detect(samples: Int16Array): VoiceEvent[] {
  const vad = new VoiceActivity({ threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 });
  const events: VoiceEvent[] = [];
  for (let offset = 0; offset < samples.length; offset += 320) events.push(...vad.push(samples.subarray(offset, offset + 320)));
  return events;
}

function expectAlternating(events: VoiceEvent[]): void {
  expect(events.length).toBeGreaterThanOrEqual(2);
  events.forEach((event, i) => {
    expect(event.type).toBe(i % 2 === 0 ? "speech_started" : "speech_stopped");
    if (i > 0) expect(event.atMs).toBeGreaterThanOrEqual(events[i - 1]!.atMs);
  });
}

describe.skipIf(!haveFfmpeg || !haveClips)("VoiceActivity on real speech", () => {
  test("given jfk.wav (first word at ~0.3 s, last ending ~10.3 s), then speech starts at the first word and stops after the last", async () => {
    const events = detect(await decoded(jfk));
    expectAlternating(events);
    // The start moved back by the 300 ms padding: detected within the first word.
    expect(events[0]!.atMs + 300).toBeGreaterThanOrEqual(250);
    expect(events[0]!.atMs + 300).toBeLessThanOrEqual(700);
    expect(events.at(-1)!.atMs).toBeGreaterThanOrEqual(10_000);
    // "...my fellow Americans, | ask not what your country can do for you, | ask what you can do for your country": pauses cut turns.
    expect(events.length / 2).toBeGreaterThanOrEqual(2);
  });

  test("given a LibriSpeech clip (first word at ~0.35 s, last ends at ~4.85 s), then speech starts at the first word and stops at the last", async () => {
    const events = detect(await decoded(clip));
    expectAlternating(events);
    expect(events[0]!.atMs + 300).toBeGreaterThanOrEqual(300);
    expect(events[0]!.atMs + 300).toBeLessThanOrEqual(700);
    const stop = events.at(-1)!.atMs;
    expect(stop).toBeGreaterThanOrEqual(4600);
    expect(stop).toBeLessThanOrEqual(5200);
  });

  test("given speech from the very first sample (jfk.wav without its lead-in), then speech still starts within the first word", async () => {
    const events = detect(await decoded(jfk, 0.3));
    expectAlternating(events);
    expect(events[0]!.atMs).toBeLessThanOrEqual(300);
  });
});
