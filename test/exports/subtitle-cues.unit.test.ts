import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { shapeCues, subtitleCues, type Cue } from "../../src/exports/formats/subtitle-cues.ts";
import { srtLabel } from "../../src/exports/formats/srt.ts";
import { displayWidth } from "../../src/exports/formats/timed-words.ts";
import { maxCharactersPerSecond, minCueMs, type CueLimits } from "../../src/exports/formats/cue-limits.ts";
import { byStart, type ExportSegment, type ExportWord } from "../../src/exports/formats/text.ts";

/** Subtitle shaping as properties over random transcripts: the guarantees hold whatever the speech. */

const graphemes = ["a", "e", "s", "t", "é", "ß", "你", "好", "😀", "👍🏽", "🇫🇷", "ا", "'", ".", ",", "?"];
const word = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.constantFrom(...graphemes), { minLength: 1, maxLength: 12 }).map((g) => g.join("")) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...graphemes), { minLength: 30, maxLength: 260 }).map((g) => g.join("")) },
);
const speaker = fc.constantFrom(null, "Ann", "Bo", "Speaker 3", "A speaker whose name is far longer than any subtitle line could hold");

/** A segment as a transcript holds it: some with the engine's word times (in order, inside the segment), some without. */
const segment = fc
  .record({
    start: fc.integer({ min: 0, max: 600_000 }),
    length: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 15_000 }), fc.integer({ min: 15_000, max: 3_600_000 })),
    words: fc.oneof({ weight: 6, arbitrary: fc.array(word, { maxLength: 40 }) }, { weight: 1, arbitrary: fc.array(word, { minLength: 200, maxLength: 600 }) }),
    speaker,
    timed: fc.boolean(),
    cuts: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1200, maxLength: 1200 }),
  })
  .map(({ start, length, words, speaker, timed, cuts }): ExportSegment => {
    const end = start + length;
    const text = words.join(" ");
    if (!timed || words.length === 0) return { start, end, text, speaker };
    const marks = cuts
      .slice(0, words.length * 2)
      .map((c) => start + Math.round(c * length))
      .sort((a, b) => a - b);
    const timedWords: ExportWord[] = words.map((w, i) => ({ text: w, start: marks[2 * i]!, end: marks[2 * i + 1]!, confidence: null }));
    return { start, end, text, speaker, words: timedWords };
  });
const limits = fc.record({
  maxLineLength: fc.integer({ min: 10, max: 200 }),
  maxLines: fc.integer({ min: 1, max: 5 }),
  maxCueSeconds: fc.integer({ min: 1, max: 60 }),
});
const transcript = fc.array(segment, { maxLength: 25 });

/** The label as srt shows it: `Ann:`, or the name cut with an ellipsis before its colon. */
const isLabelOf = (label: string, speaker: string) => label === `${speaker}:` || (label.endsWith("…:") && speaker.startsWith(label.slice(0, -2)));
const mediaEndOf = (segments: readonly ExportSegment[]) => Math.max(0, ...segments.map((s) => s.end));

/** The words a cue shows, long words put back together from their pieces. */
function wordsOf(cues: readonly Cue[]): { text: string; speaker: string | null }[] {
  const words: { text: string; speaker: string | null }[] = [];
  for (const cue of cues) {
    for (const w of cue.words) {
      if (w.glued) words[words.length - 1]!.text += w.text;
      else words.push({ text: w.text, speaker: cue.speaker });
    }
  }
  return words;
}

const spoken = (segments: readonly ExportSegment[]) =>
  byStart(segments).flatMap((s) =>
    s.text
      .split(/\s+/)
      .filter(Boolean)
      .map((text) => ({ text, speaker: s.speaker })),
  );

const runs = { numRuns: 200 };

describe("subtitle cues, for any transcript", () => {
  test("every word once, in order, with its own speaker: none lost, none repeated, no cue across speakers", () => {
    fc.assert(
      fc.property(transcript, limits, (segments, shape) => {
        const cues = shapeCues(segments, { limits: shape, label: srtLabel });
        expect(wordsOf(cues)).toEqual(spoken(segments));
      }),
      runs,
    );
  });

  test("lines are never empty and within the limits, a label too; they show the cue's words", () => {
    fc.assert(
      fc.property(transcript, limits, (segments, shape) => {
        for (const cue of shapeCues(segments, { limits: shape, label: srtLabel })) {
          expect(cue.lines.length).toBeGreaterThan(0);
          expect(cue.lines.length).toBeLessThanOrEqual(shape.maxLines);
          for (const line of cue.lines) {
            expect(line.trim()).toBe(line);
            expect(line.length).toBeGreaterThan(0);
            expect(displayWidth(line)).toBeLessThanOrEqual(shape.maxLineLength);
          }
          const shown = cue.lines.join("").replace(/ /g, "");
          expect(shown).toBe(`${cue.label ?? ""}${cue.words.map((w) => w.text).join("")}`.replace(/ /g, ""));
          if (cue.label !== null) expect(isLabelOf(cue.label, cue.speaker!)).toBe(true);
        }
      }),
      runs,
    );
  });

  test("every turn's first cue starts with the speaker's label (as shown), whatever the limits; no other cue has one", () => {
    fc.assert(
      fc.property(transcript, limits, (segments, shape) => {
        const cues = shapeCues(segments, { limits: shape, label: srtLabel });
        cues.forEach((cue, k) => {
          const turnStart = cue.speaker !== null && (k === 0 || cues[k - 1]!.speaker !== cue.speaker);
          if (!turnStart) {
            expect(cue.label).toBeNull();
            return;
          }
          expect(cue.label).not.toBeNull();
          expect(isLabelOf(cue.label!, cue.speaker!)).toBe(true);
          expect(cue.lines[0]!.startsWith(cue.label!)).toBe(true);
        });
      }),
      runs,
    );
  });

  test("cues in order, never overlapping, within the media, no longer than max_cue_seconds", () => {
    fc.assert(
      fc.property(transcript, limits, (segments, shape) => {
        const cues = shapeCues(segments, { limits: shape });
        const mediaEnd = mediaEndOf(segments);
        cues.forEach((cue, k) => {
          expect(cue.start).toBeGreaterThanOrEqual(k === 0 ? 0 : cues[k - 1]!.end);
          expect(cue.end).toBeGreaterThanOrEqual(cue.start);
          expect(cue.end).toBeLessThanOrEqual(mediaEnd);
          expect(cue.end - cue.start).toBeLessThanOrEqual(shape.maxCueSeconds * 1000);
        });
      }),
      runs,
    );
  });

  test("a cue too fast to read (over 17 characters a second) or shorter than a second is kept up as long as it may be", () => {
    fc.assert(
      fc.property(transcript, limits, (segments, shape) => {
        const cues = shapeCues(segments, { limits: shape });
        const mediaEnd = mediaEndOf(segments);
        cues.forEach((cue, k) => {
          const chars = cue.words.reduce((sum, w, i) => sum + w.width + (i > 0 && !w.glued ? 1 : 0), 0);
          const time = cue.end - cue.start;
          if (time >= minCueMs && chars * 1000 <= time * maxCharactersPerSecond) return;
          // Where the speech allows it stays up longer: only the next cue, the longest cue or the media's end stops it.
          const stops = [cues[k + 1]?.start, cue.start + shape.maxCueSeconds * 1000, mediaEnd];
          expect(stops).toContain(cue.end);
        });
      }),
      runs,
    );
  });
});

describe("subtitle cues of a long run (words without duration: a hostile transcript)", () => {
  /** `count` one- or two-letter words, all at one instant, of one speaker: one run, made into cues a window at a time. */
  const instant = (count: number, speaker: string | null): ExportSegment[] =>
    Array.from({ length: Math.ceil(count / 1000) }, (_, s) => ({
      start: 5000,
      end: 5000,
      speaker,
      text: Array.from({ length: 1000 }, (_, w) => ((s + w) % 7 === 0 ? "b." : "a")).join(" "),
    }));

  test("every word once and in order, every line within the limits, the label first", () => {
    fc.assert(
      fc.property(limits, fc.constantFrom(null, "Ann"), (shape, who) => {
        const segments = instant(12_000, who);
        const cues = shapeCues(segments, { limits: shape, label: srtLabel });
        expect(wordsOf(cues)).toEqual(spoken(segments));
        expect(cues[0]!.label).toBe(who === null ? null : "Ann:");
        for (const cue of cues) {
          expect(cue.lines.length).toBeLessThanOrEqual(shape.maxLines);
          for (const line of cue.lines) expect(displayWidth(line)).toBeLessThanOrEqual(shape.maxLineLength);
        }
      }),
      { numRuns: 12 },
    );
  });

  test("cues come while the transcript is read, not after all of it", () => {
    const read = new Set<number>();
    const segments = instant(100_000, "Ann").map((segment, s) => ({
      ...segment,
      get text() {
        read.add(s);
        return segment.text;
      },
    }));
    const first = subtitleCues(segments).next();
    expect(first.done).toBe(false);
    expect(read.size).toBeLessThan(20);
  });
});

describe("subtitle cues, by example", () => {
  const defaults: CueLimits = { maxLineLength: 42, maxLines: 2, maxCueSeconds: 7 };

  test("short segments of one speaker join; a speaker change starts a cue; a short cue stays up into the silence after it", () => {
    const cues = shapeCues(
      [
        { start: 0, end: 400, text: "Hi.", speaker: "Ann" },
        { start: 600, end: 1200, text: "How are you?", speaker: "Ann" },
        { start: 1300, end: 1500, text: "Fine.", speaker: "Bo" },
      ],
      { limits: defaults, mediaEndMs: 10_000 },
    );
    expect(cues.map((c) => [c.start, c.end, c.lines])).toEqual([
      [0, 1200, ["Hi. How are you?"]],
      [1300, 2300, ["Fine."]],
    ]);
  });

  test("the engine's word times place the cut; without them, words take their share of the segment", () => {
    const text = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen.";
    const words = text
      .split(" ")
      .map((w, i) => ({ text: w, start: i < 8 ? i * 100 : 5000 + i * 100, end: i < 8 ? i * 100 + 90 : 5000 + i * 100 + 90, confidence: 0.9 }));
    const timed = shapeCues([{ start: 0, end: 6600, text, speaker: null, words }], { limits: { ...defaults, maxLines: 1 } });
    // The pause after "eight" ends a cue there; the text alone would have been cut by its length.
    expect(timed[0]!.words.at(-1)!.text).toBe("eight");
    expect(timed[1]!.start).toBe(5800);
    const shared = shapeCues([{ start: 0, end: 6600, text, speaker: null }], { limits: { ...defaults, maxLines: 1 } });
    expect(shared[0]!.start).toBe(0);
    expect(shared.at(-1)!.end).toBe(6600);
    expect(shared.map((c) => c.words.at(-1)!.text)).not.toEqual(timed.map((c) => c.words.at(-1)!.text));
  });

  test("a label and a first word too wide to share one line: the label is cut to half the line, the word beside it", () => {
    const cues = shapeCues([{ start: 0, end: 3000, text: "Extraordinarily well said", speaker: "Annabelle Winterbottom" }], {
      limits: { maxLineLength: 12, maxLines: 1, maxCueSeconds: 7 },
      label: srtLabel,
    });
    expect(cues[0]!.lines).toEqual(["Anna…: Extra"]);
    expect(cues.map((c) => c.lines.join(" ")).join(" ")).toContain("ordinarily");
  });

  test("words the segment's text no longer has (an edit) give no times: the text is shown, by its share", () => {
    const cues = shapeCues([{ start: 0, end: 2000, text: "edited words here", speaker: null, words: [{ text: "old", start: 0, end: 100, confidence: null }] }]);
    expect(cues.map((c) => c.lines.join(" "))).toEqual(["edited words here"]);
  });
});
