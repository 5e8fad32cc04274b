/**
 * Who speaks when, without a trained model: each segment gets a voice print (the mean and spread of
 * its MFCCs, which follow the shape of the vocal tract, and its median pitch), the prints are
 * clustered with k-means, and the number of speakers is the k whose clusters are best separated
 * (silhouette), or one speaker when no split is clearly better.
 *
 * Limits (also in docs/api.md): one speaker per segment, so a turn taken without a pause joins the
 * segment before it; overlapping speech is given to one speaker; voices alike in pitch and timbre
 * (or one voice on very different microphones) can be merged or split; segments under a second are
 * too short to print reliably and take the nearest speaker found on the longer ones; at most
 * MAX_SPEAKERS (6) speakers.
 */
import type { Segment } from "../tasks/segments.ts";

const sampleRate = 16_000;
const frameLength = 400; // 25 ms
const hop = 160; // 10 ms
const fftSize = 512;
const melBands = 26;
const cepstra = 12; // c1..c12; c0 is loudness, not voice

/** Twiddle factors of the FFT size used here. */
const cosTable = Float64Array.from({ length: fftSize / 2 }, (_, k) => Math.cos((-2 * Math.PI * k) / fftSize));
const sinTable = Float64Array.from({ length: fftSize / 2 }, (_, k) => Math.sin((-2 * Math.PI * k) / fftSize));

/** In-place radix-2 FFT of length fftSize. */
function fft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let k = 0; k < size / 2; k++) {
        const wr = cosTable[k * step]!;
        const wi = sinTable[k * step]!;
        const a = start + k;
        const b = a + size / 2;
        const tr = re[b]! * wr - im[b]! * wi;
        const ti = re[b]! * wi + im[b]! * wr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

const hamming = Float64Array.from({ length: frameLength }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (frameLength - 1)));

/** Triangular mel filters over the FFT bins, 20 Hz to 8 kHz: first bin and weights. */
const melFilters: { from: number; weights: Float64Array }[] = (() => {
  const mel = (hz: number) => 2595 * Math.log10(1 + hz / 700);
  const hz = (m: number) => 700 * (10 ** (m / 2595) - 1);
  const points = Array.from({ length: melBands + 2 }, (_, i) => mel(20) + ((mel(8000) - mel(20)) * i) / (melBands + 1));
  const bins = points.map((m) => Math.min(fftSize / 2, Math.floor(((fftSize + 1) * hz(m)) / sampleRate)));
  return Array.from({ length: melBands }, (_, b) => {
    const [left, centre, right] = [bins[b]!, bins[b + 1]!, bins[b + 2]!];
    const weights = new Float64Array(right - left + 1);
    for (let k = left; k <= right; k++) weights[k - left] = k < centre ? (k - left) / Math.max(1, centre - left) : (right - k) / Math.max(1, right - centre);
    return { from: left, weights };
  });
})();

/** DCT-II basis for c1..c12. */
const dct = Array.from({ length: cepstra }, (_, n) => Float64Array.from({ length: melBands }, (_, m) => Math.cos((Math.PI * (n + 1) * (m + 0.5)) / melBands)));

/** Pitch of one frame by autocorrelation at 4 kHz (60-400 Hz), or null when the frame is not voiced. */
function framePitch(frame: Float64Array): number | null {
  // An 8-sample moving average (a low-pass with its first null at 2 kHz) taken every 4th sample.
  const decimated = new Float64Array(Math.floor((frame.length - 8) / 4) + 1);
  for (let i = 0; i < decimated.length; i++) {
    let sum = 0;
    for (let k = 0; k < 8; k++) sum += frame[4 * i + k]!;
    decimated[i] = sum / 8;
  }
  let energy = 0;
  for (const x of decimated) energy += x * x;
  if (energy <= 0) return null;
  const correlation = new Float64Array(68);
  let bestLag = 0;
  for (let lag = 9; lag <= 67; lag++) {
    // Normalised cross-correlation of the overlapping parts: no bias towards short lags.
    let sum = 0;
    let head = 0;
    let tail = 0;
    for (let i = 0; i + lag < decimated.length; i++) {
      sum += decimated[i]! * decimated[i + lag]!;
      head += decimated[i]! ** 2;
      tail += decimated[i + lag]! ** 2;
    }
    correlation[lag] = head > 0 && tail > 0 ? sum / Math.sqrt(head * tail) : 0;
    if (lag >= 10 && lag <= 66 && correlation[lag]! > (correlation[bestLag] ?? 0)) bestLag = lag;
  }
  if (bestLag === 0 || correlation[bestLag]! <= 0.3) return null;
  // Multiples of the period correlate as well as the period: take the shortest lag that peaks nearly as high.
  for (let lag = 10; lag < bestLag; lag++) {
    if (correlation[lag]! >= 0.85 * correlation[bestLag]! && correlation[lag]! >= correlation[lag - 1]! && correlation[lag]! >= correlation[lag + 1]!) {
      bestLag = lag;
      break;
    }
  }
  // A parabola through the peak and its neighbours finds the lag between samples (4 kHz is coarse).
  const [left, centre, right] = [correlation[bestLag - 1]!, correlation[bestLag]!, correlation[bestLag + 1]!];
  const curvature = left - 2 * centre + right;
  const shift = curvature < 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (left - right)) / curvature)) : 0;
  return 4000 / (bestLag + shift);
}

/** A segment's voice print: mean and standard deviation of c1..c12 over its louder frames, and log2 of its median pitch. */
export function voiceFeatures(samples: Int16Array): number[] | null {
  const frames = Math.floor((samples.length - frameLength) / hop) + 1;
  if (frames < 10) return null;
  const ceps: Float64Array[] = [];
  const energies: number[] = [];
  const pitches: number[] = [];
  const re = new Float64Array(fftSize);
  const im = new Float64Array(fftSize);
  const raw = new Float64Array(frameLength);
  for (let f = 0; f < frames; f++) {
    const offset = f * hop;
    let energy = 0;
    for (let i = 0; i < frameLength; i++) {
      const x = samples[offset + i]! / 32768;
      raw[i] = x;
      energy += x * x;
      const previous = i > 0 ? samples[offset + i - 1]! / 32768 : 0;
      re[i] = (x - 0.97 * previous) * hamming[i]!;
      im[i] = 0;
    }
    re.fill(0, frameLength);
    im.fill(0, frameLength);
    fft(re, im);
    const c = new Float64Array(cepstra);
    const logMel = melFilters.map(({ from, weights }) => {
      let sum = 0;
      for (let k = 0; k < weights.length; k++) sum += weights[k]! * (re[from + k]! ** 2 + im[from + k]! ** 2);
      return Math.log(Math.max(sum, 1e-10));
    });
    for (let n = 0; n < cepstra; n++) {
      let sum = 0;
      for (let m = 0; m < melBands; m++) sum += logMel[m]! * dct[n]![m]!;
      c[n] = sum;
    }
    ceps.push(c);
    energies.push(energy);
    if (f % 2 === 0) {
      const pitch = framePitch(raw);
      if (pitch !== null) pitches.push(pitch);
    }
  }
  // The louder half of the frames: speech, not the pauses around it.
  const median = [...energies].sort((a, b) => a - b)[Math.floor(energies.length / 2)]!;
  const voiced = ceps.filter((_, i) => energies[i]! >= median && energies[i]! > 0);
  if (voiced.length === 0) return null;
  const mean = Array.from({ length: cepstra }, (_, d) => voiced.reduce((s, c) => s + c[d]!, 0) / voiced.length);
  const std = Array.from({ length: cepstra }, (_, d) => Math.sqrt(voiced.reduce((s, c) => s + (c[d]! - mean[d]!) ** 2, 0) / voiced.length));
  const pitch = pitches.length > 0 ? [...pitches].sort((a, b) => a - b)[Math.floor(pitches.length / 2)]! : NaN;
  return [...mean, ...std, Math.log2(pitch)];
}

/** Deterministic pseudo-random numbers, so the same audio always gets the same speakers. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const distance2 = (a: number[], b: number[]) => a.reduce((sum, x, i) => sum + (x - b[i]!) ** 2, 0);

function kmeans(points: number[][], k: number, seed: number): { labels: number[]; centroids: number[][]; inertia: number } {
  const random = mulberry32(seed);
  const centroids = [points[Math.floor(random() * points.length)]!];
  while (centroids.length < k) {
    const weights = points.map((p) => Math.min(...centroids.map((c) => distance2(p, c))));
    const total = weights.reduce((a, b) => a + b, 0);
    let pick = random() * total;
    let index = 0;
    while (index < points.length - 1 && pick > weights[index]!) pick -= weights[index++]!;
    centroids.push(points[index]!);
  }
  let labels = points.map(() => 0);
  for (let round = 0; round < 50; round++) {
    const next = points.map((p) => centroids.reduce((best, c, i) => (distance2(p, c) < distance2(p, centroids[best]!) ? i : best), 0));
    const moved = next.some((l, i) => l !== labels[i]);
    labels = next;
    for (let c = 0; c < k; c++) {
      const members = points.filter((_, i) => labels[i] === c);
      if (members.length > 0) centroids[c] = members[0]!.map((_, d) => members.reduce((s, m) => s + m[d]!, 0) / members.length);
    }
    if (!moved && round > 0) break;
  }
  const inertia = points.reduce((sum, p, i) => sum + distance2(p, centroids[labels[i]!]!), 0);
  return { labels, centroids, inertia };
}

/** Mean silhouette: how much closer each point is to its own cluster than to the next nearest. */
export function silhouette(points: number[][], labels: number[]): number {
  const k = Math.max(...labels) + 1;
  let total = 0;
  for (let i = 0; i < points.length; i++) {
    const sums = new Array<number>(k).fill(0);
    const counts = new Array<number>(k).fill(0);
    for (let j = 0; j < points.length; j++) {
      if (i === j) continue;
      sums[labels[j]!]! += Math.sqrt(distance2(points[i]!, points[j]!));
      counts[labels[j]!]!++;
    }
    const own = labels[i]!;
    if (counts[own] === 0) continue; // a cluster of one scores 0
    const a = sums[own]! / counts[own]!;
    const b = Math.min(...sums.map((s, c) => (c === own || counts[c] === 0 ? Infinity : s / counts[c]!)));
    total += (b - a) / Math.max(a, b);
  }
  return total / points.length;
}

export type ClusterOptions = { maxSpeakers: number; minSilhouette?: number };

/** Standardises each dimension (missing values become the mean); pitch weighs as much as three MFCC dimensions. */
function standardise(vectors: number[][]): number[][] {
  const dims = vectors[0]!.length;
  const columns = Array.from({ length: dims }, (_, d) => {
    const values = vectors.map((v) => v[d]!).filter(Number.isFinite);
    const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0;
    const std = values.length ? Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / values.length) : 0;
    return { mean, std: std > 1e-9 ? std : 1, weight: d === dims - 1 ? 3 : 1 };
  });
  return vectors.map((v) => v.map((x, d) => (Number.isFinite(x) ? (x - columns[d]!.mean) / columns[d]!.std : 0) * columns[d]!.weight));
}

/**
 * Speaker index of each voice print (0 = whoever speaks first). `fit` marks the prints long enough
 * to shape the clusters; the others take the nearest cluster.
 */
export function clusterSpeakers(vectors: number[][], fit: boolean[], options: ClusterOptions): number[] {
  const fitted = vectors.map((_, i) => i).filter((i) => fit[i]);
  if (fitted.length < 4) return vectors.map(() => 0);
  const points = standardise(vectors);
  const training = fitted.map((i) => points[i]!);
  let best = { score: options.minSilhouette ?? 0.3, centroids: [training[0]!] };
  for (let k = 2; k <= Math.min(options.maxSpeakers, training.length - 1); k++) {
    const run = [1, 2, 3].map((seed) => kmeans(training, k, seed * 7919 + k)).reduce((a, b) => (b.inertia < a.inertia ? b : a));
    if (new Set(run.labels).size < k) continue;
    const score = silhouette(training, run.labels);
    if (score > best.score) best = { score, centroids: run.centroids };
  }
  const raw = points.map((p) => best.centroids.reduce((nearest, c, i) => (distance2(p, c) < distance2(p, best.centroids[nearest]!) ? i : nearest), 0));
  // Number speakers in order of first appearance.
  const order = new Map<number, number>();
  return raw.map((label) => {
    if (!order.has(label)) order.set(label, order.size);
    return order.get(label)!;
  });
}

/** Sets `speaker` ("Speaker 1", ...) on each segment from the samples `read` gives for its time. */
export async function diarize(segments: Segment[], read: (start: number, end: number) => Promise<Int16Array>, options: ClusterOptions): Promise<Segment[]> {
  if (segments.length === 0) return segments;
  const prints: (number[] | null)[] = [];
  for (const segment of segments) prints.push(voiceFeatures(await read(segment.start, segment.end)));
  const dims = prints.find((p) => p !== null)?.length;
  if (dims === undefined) return segments.map((s) => ({ ...s, speaker: "Speaker 1" }));
  const vectors = prints.map((p) => p ?? new Array<number>(dims).fill(NaN));
  const fit = segments.map((s, i) => prints[i] !== null && s.end - s.start >= 1000);
  const labels = clusterSpeakers(vectors, fit, options);
  return segments.map((s, i) => ({ ...s, speaker: `Speaker ${labels[i]! + 1}` }));
}
