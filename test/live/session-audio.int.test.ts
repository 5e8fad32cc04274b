/**
 * A live session's recording (src/live/session-audio.ts): samples appended in pieces of any size end up, in order, in a
 * 16 kHz mono 16-bit WAV that ffprobe reads with the recorded duration; discard removes the file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSessionAudio } from "../../src/live/session-audio.ts";
import { wavHeaderBytes } from "../../src/transcription/wav.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "scribe-live-audio-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A ramp that never repeats within the clip, so a sample out of place shows. */
const ramp = (count: number, from: number) => Int16Array.from({ length: count }, (_, i) => ((from + i) % 65536) - 32768);

async function ffprobe(path: string): Promise<Record<string, string>> {
  const probe = Bun.spawn(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,sample_rate,channels,duration", "-of", "default=nw=1", path]);
  const text = await new Response(probe.stdout).text();
  expect(await probe.exited).toBe(0);
  return Object.fromEntries(
    text
      .trim()
      .split("\n")
      .map((line) => line.split("=") as [string, string]),
  );
}

describe("session audio", () => {
  test("samples appended in odd pieces (past the write buffer) become a valid WAV of the recorded length", async () => {
    const audio = await openSessionAudio(join(dir, "made-on-open"));
    // 5.25 s in pieces of 20 ms, 1 sample, 3 s at once and the rest: through and across the 64 KiB buffer.
    const total = 5.25 * 16_000;
    const pieces = [320, 1, 48_000, 320 * 7, total - 320 - 1 - 48_000 - 320 * 7];
    let at = 0;
    for (const count of pieces) {
      audio.append(ramp(count, at));
      at += count;
    }
    expect(audio.durationMs).toBe(5250);
    const path = await audio.close();
    expect(await audio.close()).toBe(path);
    const info = await ffprobe(path);
    expect(info).toMatchObject({ codec_name: "pcm_s16le", sample_rate: "16000", channels: "1" });
    expect(Number(info.duration)).toBeCloseTo(5.25, 3);
    const bytes = new Uint8Array(await Bun.file(path).arrayBuffer());
    expect(bytes.byteLength).toBe(wavHeaderBytes + total * 2);
    expect(new Int16Array(bytes.slice(wavHeaderBytes).buffer)).toEqual(ramp(total, 0));
    expect(() => audio.append(ramp(1, 0))).toThrow("closed");
  });

  test("an empty recording is a WAV with no samples; discard removes the file, open or closed", async () => {
    const empty = await openSessionAudio(dir);
    expect(empty.durationMs).toBe(0);
    const path = await empty.close();
    expect(await ffprobe(path)).toMatchObject({ codec_name: "pcm_s16le", sample_rate: "16000", channels: "1" });
    expect(Bun.file(path).size).toBe(wavHeaderBytes);
    await empty.discard();
    expect(existsSync(path)).toBe(false);

    const open = await openSessionAudio(dir);
    open.append(ramp(1600, 0));
    await open.discard();
    expect(readdirSync(dir).filter((name) => name.endsWith(".wav"))).toEqual([]);
  });
});
