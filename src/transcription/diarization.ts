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
import { clusterSpeakers, type ClusterOptions } from "./speaker-clusters.ts";
import { voiceFeatures } from "./voice-print.ts";

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
