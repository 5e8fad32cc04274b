/**
 * The embedded summariser. Summary: TextRank over the transcript's sentences (a sentence matters when
 * it shares words with many others), the best kept in their original order. Mind map: a Markdown
 * outline with the task's name as title, one topic per section of the transcript (sections cut where
 * the vocabulary changes most), each named by its key phrase and holding its best sentences.
 */
import type { Summarizer, SummaryInput, SummaryResult } from "./summarizer.ts";
import { keyPhrases, splitSentences, wordFrequency, type Sentence } from "./text.ts";
import { BackgroundThread } from "../../core/background-thread.ts";

const summaryWordBudget = 120;
/** Above this many sentences TextRank's pairwise graph is too big: sentences are scored by word frequency. */
const textRankLimit = 1000;

function similarity(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size < 1 || b.size < 1) return 0;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared === 0 ? 0 : shared / (Math.log(a.size + 1) + Math.log(b.size + 1));
}

/** Importance of each sentence, 0..1 (TextRank, or frequency for very long transcripts). */
export function rankSentences(sentences: Sentence[]): number[] {
  const n = sentences.length;
  if (n === 0) return [];
  const sets = sentences.map((s) => new Set(s.words));
  let scores: number[];
  if (n > textRankLimit) {
    const frequency = wordFrequency(sentences.map((s) => s.text));
    scores = sets.map((set) => [...set].reduce((sum, w) => sum + (frequency.get(w) ?? 0), 0) / Math.sqrt(set.size + 1));
  } else {
    const weights = sets.map((a) => sets.map((b, _j) => (a === b ? 0 : similarity(a, b))));
    const outgoing = weights.map((row) => row.reduce((x, y) => x + y, 0));
    scores = new Array<number>(n).fill(1 / n);
    for (let round = 0; round < 40; round++) {
      scores = scores.map(
        (_, i) => 0.15 / n + 0.85 * weights.reduce((sum, row, j) => (outgoing[j]! > 0 ? sum + (row[i]! / outgoing[j]!) * scores[j]! : sum), 0),
      );
    }
  }
  // Fragments ("Yes.", "Thank you.") are rarely the point.
  scores = scores.map((score, i) => (sets[i]!.size < 3 ? score * 0.5 : score));
  const best = Math.max(...scores);
  return scores.map((s) => (best > 0 ? s / best : 0));
}

/** The best sentences, in transcript order, within a word budget (at least one): a third of the transcript, 25 to 120 words. */
export function extractSummary(sentences: Sentence[], scores: number[], budget?: number): string | null {
  if (sentences.length === 0) return null;
  const totalWords = sentences.reduce((n, s) => n + s.text.split(/\s+/).length, 0);
  budget ??= Math.min(summaryWordBudget, Math.max(25, Math.round(totalWords / 3)));
  const order = sentences.map((_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
  const kept: number[] = [];
  let words = 0;
  for (const i of order) {
    const length = sentences[i]!.text.split(/\s+/).length;
    if (kept.length > 0 && words + length > budget) continue;
    kept.push(i);
    words += length;
    if (words >= budget) break;
  }
  return kept
    .sort((a, b) => a - b)
    .map((i) => sentences[i]!.text)
    .join(" ");
}

/** Cuts the transcript into `count` sections where the words on either side have least in common. */
export function sectionBoundaries(sentences: Sentence[], count: number): number[] {
  const n = sentences.length;
  if (count <= 1 || n < 4) return [];
  const window = 3;
  const bag = (from: number, to: number) => {
    const words = new Map<string, number>();
    for (let i = Math.max(0, from); i < Math.min(n, to); i++) for (const w of sentences[i]!.words) words.set(w, (words.get(w) ?? 0) + 1);
    return words;
  };
  const cosine = (a: Map<string, number>, b: Map<string, number>) => {
    let dot = 0;
    for (const [w, x] of a) dot += x * (b.get(w) ?? 0);
    const norm = (m: Map<string, number>) => Math.sqrt([...m.values()].reduce((s, x) => s + x * x, 0));
    return dot === 0 ? 0 : dot / (norm(a) * norm(b));
  };
  const gaps = Array.from({ length: n - 1 }, (_, g) => {
    const at = g + 1;
    const pause = sentences[at]!.start - sentences[at - 1]!.end;
    // A long pause is a likely change of subject too.
    return { at, cohesion: cosine(bag(at - window, at), bag(at, at + window)) - (pause >= 3000 ? 0.2 : 0) };
  });
  const minimum = Math.max(2, Math.floor(n / (count * 2)));
  const chosen: number[] = [];
  for (const gap of gaps.sort((a, b) => a.cohesion - b.cohesion || a.at - b.at)) {
    if (chosen.length >= count - 1) break;
    if (gap.at < minimum || n - gap.at < minimum || chosen.some((c) => Math.abs(c - gap.at) < minimum)) continue;
    chosen.push(gap.at);
  }
  return chosen.sort((a, b) => a - b);
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const shorten = (text: string, words = 24) => {
  const parts = text.split(/\s+/);
  return parts.length <= words ? text : `${parts.slice(0, words).join(" ")}…`;
};

/** The mind map: `# title`, `## topic` per section, `- key point` under each. */
export function buildMindMap(title: string, sentences: Sentence[], scores: number[]): string | null {
  if (sentences.length === 0) return null;
  const frequency = wordFrequency(sentences.map((s) => s.text));
  const phrases = keyPhrases(
    sentences.map((s) => s.text),
    frequency,
  );
  const heading = title.trim() || capitalise(phrases[0]?.phrase ?? "Transcript");
  const sectionCount = Math.max(1, Math.min(5, Math.round(sentences.length / 8)));
  const cuts = [0, ...sectionBoundaries(sentences, sectionCount), sentences.length];
  const used = new Set<string>();
  const lines = [`# ${heading}`];
  for (let s = 0; s + 1 < cuts.length; s++) {
    const section = sentences.slice(cuts[s], cuts[s + 1]);
    const topic = keyPhrases(
      section.map((x) => x.text),
      frequency,
    ).find((p) => !used.has(p.phrase) && ![...used].some((u) => u.includes(p.phrase) || p.phrase.includes(u)));
    if (topic) used.add(topic.phrase);
    lines.push("", `## ${capitalise(topic?.phrase ?? `Part ${s + 1}`)}`);
    const points = Math.min(3, Math.max(1, Math.ceil(section.length / 4)));
    const best = section
      .map((x) => x.index)
      .sort((a, b) => scores[b]! - scores[a]! || a - b)
      .slice(0, points)
      .sort((a, b) => a - b);
    for (const i of best) lines.push(`- ${shorten(sentences[i]!.text)}`);
    const related: string[] = [];
    const overlaps = (a: string, b: string) => a.includes(b) || b.includes(a);
    for (const { phrase } of keyPhrases(
      section.map((x) => x.text),
      frequency,
    )) {
      if (related.length >= 3) break;
      if (!phrase.includes(" ") || (topic && overlaps(phrase, topic.phrase)) || related.some((r) => overlaps(r, phrase))) continue;
      related.push(phrase);
    }
    if (related.length > 0) lines.push(`- Key phrases: ${related.join(", ")}`);
  }
  return lines.join("\n");
}

export function summarizeExtractively(input: SummaryInput): SummaryResult {
  const sentences = splitSentences(input.segments);
  const scores = rankSentences(sentences);
  return { summary: extractSummary(sentences, scores), mindmap: buildMindMap(input.title, sentences, scores) };
}

/**
 * More segments than six hours of speech have (a client may send 100,000) are summarised from an even
 * sample of them: 120 words of summary and a five-topic mind map do not need every sentence, and the whole
 * of a maximal transcript took 10 s and a gigabyte.
 */
const maxSummarySegments = 10_000;

function evenlySpaced<T>(items: readonly T[], most: number): readonly T[] {
  if (items.length <= most) return items;
  const step = items.length / most;
  return Array.from({ length: most }, (_, i) => items[Math.floor(i * step)]!);
}

/**
 * On a thread of its own: a maximal transcript (100,000 segments) takes about 10 s of CPU, which on the
 * caller's thread stalled every request of the process for as long. Only times and text go across.
 */
export class ExtractiveSummarizer implements Summarizer {
  readonly name = "extractive";
  private readonly thread = new BackgroundThread<SummaryInput, SummaryResult>(new URL("./summary-thread.ts", import.meta.url), "summarising");

  async summarize(input: SummaryInput): Promise<SummaryResult> {
    // Short transcripts (most) cost less than the trip to the thread.
    if (input.segments.length <= 200) return summarizeExtractively(input);
    return this.thread.run({
      title: input.title,
      segments: evenlySpaced(input.segments, maxSummarySegments).map(({ start, end, text }) => ({ start, end, text })),
    });
  }
}
