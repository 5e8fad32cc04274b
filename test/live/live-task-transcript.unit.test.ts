/** A live session's turns as a task's segments (src/live/live-transcript.ts) and the task's name. */
import { describe, expect, test } from "bun:test";
import { segmentsOfTurns } from "../../src/live/live-transcript.ts";
import { liveTaskName } from "../../src/live/live-task.ts";
import type { LiveTurn } from "../../src/live/live-session-types.ts";

const turn = (start: number, end: number, text: string, punctuated = false, words: LiveTurn["words"] = []): LiveTurn => ({
  start,
  end,
  text,
  words,
  punctuated,
});

describe("live turns as segments", () => {
  test("one segment per turn that said something, numbered in order; silent turns leave none", () => {
    const segments = segmentsOfTurns([turn(0, 500, "  "), turn(600, 1500, "hello there"), turn(1600, 2500, "Yes, it works.", true)], 3000);
    expect(segments.map(({ id, start, end, text, tokens }) => ({ id, start, end, text, tokens }))).toEqual([
      { id: 1, start: 600, end: 1500, text: "Hello there.", tokens: null },
      { id: 2, start: 1600, end: 2500, text: "Yes, it works.", tokens: null },
    ]);
    expect(segments.every((s) => s.words === undefined && s.speaker === null)).toBe(true);
  });

  test("times are whole ms inside the recording, never reversed, a time that is no number read as 0; words kept", () => {
    const words = [
      { text: "late", start: 2900.4, end: 3400, confidence: 0.5 },
      { text: "odd", start: Number.NaN, end: -5, confidence: null },
    ];
    const [segment] = segmentsOfTurns([turn(2900.4, 3600, "late odd", false, words)], 3000);
    expect(segment).toMatchObject({ start: 2900, end: 3000, tokens: ["late", "odd"] });
    expect(segment!.words).toEqual([
      { text: "late", start: 2900, end: 3000, confidence: 0.5 },
      { text: "odd", start: 0, end: 0, confidence: null },
    ]);
  });

  test("the task is named after when the session began, in UTC", () => {
    expect(liveTaskName(new Date("2026-11-27T14:03:59.999Z"))).toBe("Live transcription 2026-11-27 14:03");
  });
});

describe("live turns that overlap", () => {
  test("given a turn padded back into the one before, then its segment spans its words and starts where the other ended", () => {
    const first = turn(120, 3455, "for a full hour", false, [
      { text: "for", start: 300, end: 500, confidence: 0.9 },
      { text: "hour", start: 2800, end: 3300, confidence: 0.9 },
    ]);
    const second = turn(3220, 5247, "but he could wait", false, [
      { text: "but", start: 3250, end: 3500, confidence: 0.9 },
      { text: "wait", start: 4500, end: 4900, confidence: 0.9 },
    ]);
    const [one, two] = segmentsOfTurns([first, second], 6000);
    expect(one).toMatchObject({ start: 300, end: 3300 });
    expect(two).toMatchObject({ start: 3300, end: 4900 });
  });
});
