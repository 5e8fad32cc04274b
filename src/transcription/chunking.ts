/**
 * Where to cut long media: at pauses, so no word is cut in two and each chunk can be recognised on
 * its own core. Pure functions over per-frame levels (dBFS), which media.ts measures on the PCM.
 */
export const frameMs = 20;

export type Span = { start: number; end: number };

/** Level of each 20 ms frame in dBFS (-120 for digital silence). */
export function frameLevels(samples: Int16Array, sampleRate = 16_000): Float32Array {
  const size = Math.round((sampleRate * frameMs) / 1000);
  const levels = new Float32Array(Math.floor(samples.length / size));
  for (let f = 0; f < levels.length; f++) {
    let sum = 0;
    for (let i = f * size; i < (f + 1) * size; i++) sum += samples[i]! * samples[i]!;
    const rms = Math.sqrt(sum / size) / 32768;
    levels[f] = rms > 1e-6 ? 20 * Math.log10(rms) : -120;
  }
  return levels;
}

function percentile(sorted: Float32Array, p: number): number {
  if (sorted.length === 0) return -120;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Media whose loudest frames stay below this is silent. */
export const silentBelowDb = -60;

export type SilenceAnalysis = { silent: boolean; thresholdDb: number; silences: Span[] };

/**
 * A frame is quiet below a threshold relative to the recording: above its noise floor (10th
 * percentile) and well below its speech (99th percentile). Quiet runs of at least `minSilenceMs`
 * are pauses.
 */
export function findSilences(levels: Float32Array, options: { minSilenceMs?: number } = {}): SilenceAnalysis {
  const minFrames = Math.ceil((options.minSilenceMs ?? 400) / frameMs);
  const sorted = Float32Array.from(levels).sort();
  const floor = percentile(sorted, 0.1);
  const peak = percentile(sorted, 0.99);
  if (levels.length === 0 || peak < silentBelowDb) return { silent: true, thresholdDb: silentBelowDb, silences: [{ start: 0, end: levels.length * frameMs }] };
  const thresholdDb = Math.min(Math.max(floor + 8, peak - 40), peak - 12);
  const silences: Span[] = [];
  let runStart = -1;
  for (let f = 0; f <= levels.length; f++) {
    const quiet = f < levels.length && levels[f]! < thresholdDb;
    if (quiet && runStart < 0) runStart = f;
    if (!quiet && runStart >= 0) {
      if (f - runStart >= minFrames) silences.push({ start: runStart * frameMs, end: f * frameMs });
      runStart = -1;
    }
  }
  return { silent: false, thresholdDb, silences };
}

export type ChunkOptions = {
  /** Chunks aim at this length... */
  targetMs: number;
  /** ...and a stretch of speech without a pause is cut hard (at its quietest frame) past this. */
  maxMs: number;
  /** Silence kept on each side of the speech (500 ms), at most half of the pause. */
  padMs?: number;
  /** A pause at least this long always ends a chunk: the silence is not sent to the engine. */
  longPauseMs?: number;
  /** Sounds shorter than this between pauses (a click, a breath) are left out. */
  minSpanMs?: number;
};

/** The stretches between pauses. */
export function speechSpans(durationMs: number, silences: Span[]): Span[] {
  const spans: Span[] = [];
  let at = 0;
  for (const silence of silences) {
    if (silence.start > at) spans.push({ start: at, end: silence.start });
    at = Math.max(at, silence.end);
  }
  if (at < durationMs) spans.push({ start: at, end: durationMs });
  return spans;
}

/** Cuts a stretch longer than `maxMs` at its quietest frames, each piece between target and max. */
function splitLong(span: Span, levels: Float32Array, { targetMs, maxMs }: ChunkOptions): Span[] {
  const pieces: Span[] = [];
  let start = span.start;
  while (span.end - start > maxMs) {
    const from = Math.ceil((start + targetMs) / frameMs);
    const to = Math.floor((start + maxMs) / frameMs);
    let cut = to;
    for (let f = from; f < to && f < levels.length; f++) if (levels[f]! < (levels[cut] ?? Infinity)) cut = f;
    pieces.push({ start, end: cut * frameMs });
    start = cut * frameMs;
  }
  pieces.push({ start, end: span.end });
  return pieces;
}

/**
 * Groups speech into chunks of about `targetMs`: neighbouring stretches join while the chunk stays
 * within target and the pause between them is short; each chunk keeps a little of the silence around it.
 */
export function planChunks(durationMs: number, silences: Span[], levels: Float32Array, options: ChunkOptions): Span[] {
  const padMs = options.padMs ?? 500;
  const longPauseMs = options.longPauseMs ?? 5000;
  const minSpanMs = options.minSpanMs ?? 120;
  const spans = speechSpans(durationMs, silences)
    .filter((s) => s.end - s.start >= minSpanMs)
    .flatMap((s) => splitLong(s, levels, options));
  const groups: Span[][] = [];
  for (const span of spans) {
    const group = groups[groups.length - 1];
    const last = group?.[group.length - 1];
    if (group && last && span.start - last.end < longPauseMs && span.end - group[0]!.start <= options.targetMs) group.push(span);
    else groups.push([span]);
  }
  return groups.map((group, i) => {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    const before = i === 0 ? first.start : first.start - groups[i - 1]![groups[i - 1]!.length - 1]!.end;
    const after = i === groups.length - 1 ? durationMs - last.end : groups[i + 1]![0]!.start - last.end;
    // A pause shared with a neighbour is split between the two, so chunks never overlap.
    const padBefore = i === 0 ? Math.min(padMs, before) : Math.min(padMs, before / 2);
    const padAfter = i === groups.length - 1 ? Math.min(padMs, after) : Math.min(padMs, after / 2);
    return { start: Math.round(first.start - padBefore), end: Math.round(last.end + padAfter) };
  });
}
