// Subtitle cues before and after shaping for reading: `bun bench/subtitle-cues.bench.ts [minutes]`.
// A recording of `minutes` (default 10) as the pipeline makes it: two speakers taking turns of 1 to 4 sentence-like
// segments, each segment 2 to 15 s of words with the engine's word times (about 2.8 words a second, short pauses
// between words, 0.2 to 1.5 s between segments). "Before" is what srt and vtt were: one cue per segment, its text on
// one line. "After" is shapeCues with the default limits (2 lines of 42 characters, 1 to 7 s, 17 characters a second).
// Printed: cues per minute, and the share of cues within 17 characters a second, within the line limits and within
// 1 to 7 s, before and after; and the time to shape the recording (median of 5 runs after a warm-up).
// Then a hostile transcript: 100k and 1M one-letter words without duration (segments with start == end, as a client
// may send), one speaker, at the default limits and at the widest (200 × 5, 60 s): the time to make the whole srt,
// and the longest the download's stream waits for its next cue (what the event loop is blocked for), one run after a
// warm-up (quick mode: 100k only).
import { shapeCues } from "../src/exports/formats/subtitle-cues.ts";
import { srtChunks } from "../src/exports/formats/srt.ts";
import { cueLimitBounds, defaultCueLimits, maxCharactersPerSecond, type CueLimits } from "../src/exports/formats/cue-limits.ts";
import { displayWidth } from "../src/exports/formats/timed-words.ts";
import type { ExportSegment, ExportWord } from "../src/exports/formats/text.ts";
import { figure } from "./support/figures.ts";
import { numberArgument, sized } from "./support/quick.ts";
import { percentile } from "./support/stats.ts";

const minutes = numberArgument(0, 10, 10);
const mediaEndMs = minutes * 60_000;
const vocabulary = [
  "the of and to in that is was it for on with as we this you be at have are not but from they by or one had what",
  "all were when there can an your which their said if do will each about how up out them then she many some so",
  "these would other into has more her two like him see time could no make than first been its who now people my",
  "made over did down only way find use may water long little very after words called just where most know get",
  "through back much before go good new write our used me man too any day same right look think also around",
  "another came come work three word must because does part even place well such here take why help put different",
  "away again off went old number great tell men say small every found still between name should home big give",
  "air line set own under read last never us left end along while might next sound below saw something thought",
  "both few those always show large often together asked house world going want school important until form food",
  "keep children feet land side without boy once animal life enough took four head above kind began almost live",
  "page got earth need far hand high year mother light country father let night picture being study second soon",
  "story since white ever paper hard near sentence better best across during today however sure knew try told",
  "young sun thing whole hear example heard several change answer room sea against top turned learn point city",
  "play toward five himself usually money seen car morning",
]
  .join(" ")
  .split(" ");

let seed = 7;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const between = (low: number, high: number) => low + random() * (high - low);
const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;

/** One segment: words at about 2.8 a second for 2 to 15 s, each timed, the last ending the sentence. */
function sentence(start: number, speaker: string): ExportSegment {
  const seconds = between(2, 15);
  const pace = between(0.75, 1.25); // some sentences are said faster than others
  const words: ExportWord[] = [];
  let at = start;
  while (at < start + seconds * 1000) {
    const text = pick(vocabulary);
    const length = (80 + displayWidth(text) * 40 + between(0, 80)) * pace;
    words.push({ text, start: Math.round(at), end: Math.round(at + length), confidence: 0.9 });
    at += length + between(20, random() < 0.1 ? 450 : 120);
  }
  words[0]!.text = words[0]!.text[0]!.toUpperCase() + words[0]!.text.slice(1);
  words.at(-1)!.text += random() < 0.15 ? "?" : ".";
  return { start, end: words.at(-1)!.end, text: words.map((w) => w.text).join(" "), speaker, words };
}

function recording(): ExportSegment[] {
  const segments: ExportSegment[] = [];
  let at = 500;
  let speaker = "Speaker 1";
  while (true) {
    for (let turn = Math.ceil(between(0, 4)); turn > 0; turn--) {
      const segment = sentence(at, speaker);
      if (segment.end > mediaEndMs) return segments;
      segments.push(segment);
      at = segment.end + between(200, 1500);
    }
    speaker = speaker === "Speaker 1" ? "Speaker 2" : "Speaker 1";
  }
}

type Shown = { start: number; end: number; lines: string[]; chars: number };
const segments = recording();
const before: Shown[] = segments.map((s) => ({ start: s.start, end: s.end, lines: [`${s.speaker}: ${s.text}`], chars: displayWidth(s.text) }));
const shape = () => shapeCues(segments, { limits: defaultCueLimits, mediaEndMs, label: (speaker) => `${speaker}:` });
const after: Shown[] = shape().map((c) => ({
  start: c.start,
  end: c.end,
  lines: c.lines,
  chars: c.words.reduce((sum, w, i) => sum + w.width + (i > 0 && !w.glued ? 1 : 0), 0),
}));

const share = (cues: Shown[], within: (cue: Shown) => boolean) => (100 * cues.filter(within).length) / cues.length;
const readable = (cue: Shown) => cue.chars * 1000 <= (cue.end - cue.start) * maxCharactersPerSecond;
const fits = (cue: Shown) => cue.lines.length <= defaultCueLimits.maxLines && cue.lines.every((line) => displayWidth(line) <= defaultCueLimits.maxLineLength);
const timed = (cue: Shown) => cue.end - cue.start >= 1000 && cue.end - cue.start <= defaultCueLimits.maxCueSeconds * 1000;

const times: number[] = [];
for (let run = 0; run < 6; run++) {
  const started = performance.now();
  shape();
  if (run > 0) times.push(performance.now() - started);
}

const words = segments.reduce((sum, s) => sum + (s.words?.length ?? 0), 0);
console.log(`a ${minutes}-minute recording: ${segments.length} segments, ${words} words, two speakers`);
console.log("               cues/min   ≤ 17 cps   ≤ 2×42 chars   1–7 s");
for (const [name, cues] of [
  ["before (1/seg)", before],
  ["after (shaped)", after],
] as const) {
  const row = [cues.length / minutes, share(cues, readable), share(cues, fits), share(cues, timed)];
  console.log(`${name.padEnd(14)} ${row.map((v, i) => `${v.toFixed(1)}${i > 0 ? " %" : ""}`.padStart(i === 2 ? 14 : 10)).join(" ")}`);
}
figure("cues per minute, one per segment (before)", before.length / minutes, "cues/min");
figure("cues per minute, shaped (after)", after.length / minutes, "cues/min");
figure("cues within 17 characters a second, before", share(before, readable), "%");
figure("cues within 17 characters a second, after", share(after, readable), "%");
figure("cues within 2 lines of 42 characters, before", share(before, fits), "%");
figure("cues within 2 lines of 42 characters, after", share(after, fits), "%", { op: ">=", value: 100 });
figure("cues of 1 to 7 s, before", share(before, timed), "%");
figure("cues of 1 to 7 s, after", share(after, timed), "%");
figure(`shaping ${minutes} minutes, median`, percentile(times, 50), "ms");

/** `count` one-letter words at one instant, a thousand a segment, of one speaker: a single run the cutter cannot end early. */
const hostile = (count: number): ExportSegment[] =>
  Array.from({ length: count / 1000 }, () => ({ start: 1000, end: 1000, text: "a ".repeat(1000).trimEnd(), speaker: "Ann" }));

/** The whole srt made as a download makes it: the total time, and the longest wait between two chunks. */
function streamed(hostileSegments: readonly ExportSegment[], limits: CueLimits): { total: number; longest: number } {
  const started = performance.now();
  let last = started;
  let longest = 0;
  for (const _ of srtChunks(hostileSegments, { limits })) {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }
  return { total: performance.now() - started, longest };
}

const widest: CueLimits = {
  maxLineLength: cueLimitBounds.maxLineLength.maximum,
  maxLines: cueLimitBounds.maxLines.maximum,
  maxCueSeconds: cueLimitBounds.maxCueSeconds.maximum,
};
for (const count of sized([100_000, 1_000_000], [100_000])) {
  const hostileSegments = hostile(count);
  for (const [name, limits] of [
    ["default limits", defaultCueLimits],
    ["widest limits", widest],
  ] as const) {
    streamed(hostileSegments, limits);
    const { total, longest } = streamed(hostileSegments, limits);
    const words = `${count / 1000}k words without duration`;
    console.log(`${words}, ${name}: srt in ${total.toFixed(0)} ms, longest wait for a chunk ${longest.toFixed(1)} ms`);
    figure(`srt of ${words}, ${name}`, total, "ms");
    figure(`longest wait between srt chunks, ${words}, ${name}`, longest, "ms", { op: "<=", value: 50 });
  }
}
