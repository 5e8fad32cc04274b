/**
 * A live recording's speakers are told apart off the event loop, from at most 30 s of each turn (live-speakers.ts): a
 * session of one ten-minute turn (turn detection off) holds the API's timers up for no more than a moment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { voicePrintMs, voicePrintSpan, withSpeakers } from "../../src/live/live-speakers.ts";
import { openSessionAudio } from "../../src/live/session-audio.ts";
import type { Segment } from "../../src/tasks/segments.ts";
import { voice } from "./live-task-voices.ts";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "scribe-live-speakers-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A recording of `clip` repeated so: a long voice without synthesising every second of it. */
async function recording(...pieces: [clip: Int16Array, times: number][]): Promise<string> {
  const audio = await openSessionAudio(dir);
  for (const [clip, times] of pieces) for (let i = 0; i < times; i++) audio.append(clip);
  return audio.close();
}

const segment = (id: number, start: number, end: number): Segment => ({ id, start, end, text: `turn ${id}`, speaker: null, tokens: null });

/** The longest wait of a 5 ms timer while `work` runs: how long the event loop was held. */
async function longestTimerGap(work: () => Promise<unknown>): Promise<number> {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 5);
  try {
    await work();
  } finally {
    clearInterval(timer);
  }
  return Math.max(longest, performance.now() - last);
}

describe("speakers of a live recording", () => {
  test("a voice print is read from a turn's middle 30 s at most", () => {
    expect(voicePrintSpan(1000, 25_000)).toEqual({ start: 1000, end: 25_000 });
    expect(voicePrintSpan(0, 600_000)).toEqual({ start: 285_000, end: 285_000 + voicePrintMs });
    expect(voicePrintSpan(0, voicePrintMs + 1)).toEqual({ start: 0, end: voicePrintMs });
  });

  test("a ten-minute single turn's speaker is found while a 5 ms timer is never held up 200 ms", async () => {
    const wavPath = await recording([voice(110, [700, 1200], 10_000, 1), 60]);
    let labelled: Segment[] = [];
    const gap = await longestTimerGap(async () => {
      labelled = await withSpeakers([segment(1, 0, 600_000)], wavPath, 6);
    });
    expect(labelled.map((s) => s.speaker)).toEqual(["Speaker 1"]);
    expect(gap).toBeLessThan(200);
  });

  test("two voices in turns longer than the print are still told apart", async () => {
    const [a, b] = [voice(110, [700, 1200], 10_000, 2), voice(240, [350, 2600], 10_000, 3)];
    const wavPath = await recording([a, 4], [b, 4], [a, 4], [b, 4], [a, 4]);
    const turns = [0, 1, 2, 3, 4].map((i) => segment(i + 1, i * 40_000, i * 40_000 + 39_000));
    const labelled = await withSpeakers(turns, wavPath, 6);
    expect(labelled.map((s) => s.speaker)).toEqual(["Speaker 1", "Speaker 2", "Speaker 1", "Speaker 2", "Speaker 1"]);
    expect(labelled.map((s) => s.text)).toEqual(turns.map((s) => s.text));
  });
});
