import { describe, expect, test } from "bun:test";
import { diarize } from "../../src/transcription/diarization.ts";
import { clusterSpeakers, silhouette } from "../../src/transcription/speaker-clusters.ts";
import { voiceFeatures } from "../../src/transcription/voice-print.ts";

/** Deterministic noise. */
function random(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

/** Gaussian blobs around `centres` in 25 dimensions. */
function blobs(centres: number[][], perBlob: number, spread: number, seed = 1): { vectors: number[][]; truth: number[] } {
  const next = random(seed);
  const gaussian = () => Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
  const vectors: number[][] = [];
  const truth: number[] = [];
  for (let i = 0; i < perBlob; i++) {
    centres.forEach((centre, c) => {
      vectors.push(centre.map((x) => x + spread * gaussian()));
      truth.push(c);
    });
  }
  return { vectors, truth };
}

const centre = (value: number) => Array.from({ length: 25 }, (_, d) => (d % 3 === 0 ? value : -value / 2));

/** Same partition, whatever the numbering. */
function samePartition(a: number[], b: number[]): boolean {
  const map = new Map<number, number>();
  return a.every((x, i) => (map.has(x) ? map.get(x) === b[i] : (map.set(x, b[i]!), true))) && new Set(a).size === new Set(b).size;
}

describe("speaker clustering on synthetic voice prints", () => {
  test("two well separated voices are two speakers, numbered by first appearance", () => {
    const { vectors, truth } = blobs([centre(3), centre(-3)], 10, 1);
    const labels = clusterSpeakers(
      vectors,
      vectors.map(() => true),
      { maxSpeakers: 6 },
    );
    expect(labels[0]).toBe(0);
    expect(samePartition(labels, truth)).toBe(true);
  });

  test("three voices are three speakers", () => {
    const three = [centre(4), centre(-4), Array.from({ length: 25 }, (_, d) => (d % 2 ? 4 : -4))];
    const { vectors, truth } = blobs(three, 8, 1, 7);
    expect(
      samePartition(
        clusterSpeakers(
          vectors,
          vectors.map(() => true),
          { maxSpeakers: 6 },
        ),
        truth,
      ),
    ).toBe(true);
  });

  test("one voice stays one speaker", () => {
    const { vectors } = blobs([centre(0)], 20, 1, 3);
    expect(
      new Set(
        clusterSpeakers(
          vectors,
          vectors.map(() => true),
          { maxSpeakers: 6 },
        ),
      ),
    ).toEqual(new Set([0]));
  });

  test("prints too short to fit take the nearest speaker; too few prints are one speaker", () => {
    const { vectors, truth } = blobs([centre(3), centre(-3)], 6, 0.5, 5);
    const fit = vectors.map((_, i) => i >= 2);
    expect(samePartition(clusterSpeakers(vectors, fit, { maxSpeakers: 6 }), truth)).toBe(true);
    expect(clusterSpeakers(vectors.slice(0, 3), [true, true, true], { maxSpeakers: 6 })).toEqual([0, 0, 0]);
  });

  test("silhouette: separated clusters score near 1, a random split near 0", () => {
    const { vectors, truth } = blobs([centre(5), centre(-5)], 10, 0.5);
    expect(silhouette(vectors, truth)).toBeGreaterThan(0.8);
    expect(
      Math.abs(
        silhouette(
          vectors,
          vectors.map((_, i) => Math.floor(i / 2) % 2),
        ),
      ),
    ).toBeLessThan(0.2);
  });
});

/** A crude voice: harmonics of f0 shaped by two formants, syllable-like loudness, a little noise. */
function voice(f0: number, formants: [number, number], ms: number, seed: number): Int16Array {
  const rate = 16_000;
  const next = random(seed);
  const samples = new Int16Array((rate * ms) / 1000);
  const gain = (f: number) => formants.reduce((g, F) => g + 1 / (1 + ((f - F) / 150) ** 2), 0.05);
  let phase = 0;
  for (let i = 0; i < samples.length; i++) {
    const t = i / rate;
    phase += (2 * Math.PI * f0 * (1 + 0.02 * Math.sin(2 * Math.PI * 5 * t))) / rate; // a slight vibrato
    let x = 0;
    for (let h = 1; h * f0 < 4000; h++) x += gain(h * f0) * Math.sin(h * phase);
    const envelope = 0.5 + 0.5 * Math.sin(2 * Math.PI * 4 * t) ** 2;
    samples[i] = Math.max(-32767, Math.min(32767, Math.round(6000 * envelope * x + 300 * (next() - 0.5))));
  }
  return samples;
}

describe("voice prints from audio", () => {
  test("the pitch dimension follows the voice's pitch", () => {
    const low = voiceFeatures(voice(110, [500, 1500], 1500, 1))!;
    const high = voiceFeatures(voice(220, [700, 2200], 1500, 2))!;
    expect(low.length).toBe(25);
    expect(2 ** low[24]!).toBeGreaterThan(95);
    expect(2 ** low[24]!).toBeLessThan(125);
    expect(2 ** high[24]!).toBeGreaterThan(195);
    expect(2 ** high[24]!).toBeLessThan(245);
    expect(voiceFeatures(new Int16Array(100))).toBeNull();
  });

  test("diarize labels alternating voices by who speaks", async () => {
    const who = [0, 1, 0, 1, 1, 0, 0, 1];
    const audio = who.map((w, i) => (w === 0 ? voice(110, [500, 1500], 2000, i + 10) : voice(210, [750, 2300], 2000, i + 20)));
    const segments = who.map((_, i) => ({ id: i + 1, start: i * 2000, end: (i + 1) * 2000, text: "x", speaker: null, tokens: null }));
    const labelled = await diarize(segments, async (start) => audio[start / 2000]!, { maxSpeakers: 6 });
    expect(labelled.map((s) => s.speaker)).toEqual(who.map((w) => `Speaker ${w + 1}`));
  });
});
