import { describe, expect, test } from "bun:test";
import {
  ExtractiveSummarizer,
  buildMindMap,
  extractSummary,
  rankSentences,
  sectionBoundaries,
  summarizeExtractively,
} from "../../src/transcription/summary/extractive.ts";
import { keyPhrases, splitSentences, stem } from "../../src/transcription/summary/text.ts";

const budget = [
  "Welcome everyone, today we review the travel budget for the sales team.",
  "The travel budget grew by forty percent this year.",
  "Most of the travel budget went to flights for customer visits.",
  "We could cut the travel budget by using video calls for first meetings.",
  "Hotels are the second largest part of the travel budget.",
  "Finance wants the travel budget approved by Friday.",
];
const hiring = [
  "Now let us talk about hiring engineers for the platform team.",
  "We need three senior engineers before the summer release.",
  "Hiring engineers takes about two months from interview to offer.",
  "The interview process for engineers has four rounds today.",
  "We will shorten the interview process for engineers to three rounds.",
  "Thanks, that is all for today.",
];
const segments = [...budget, ...hiring].map((text, i) => ({ start: i * 5000, end: i * 5000 + 4000, text }));

describe("extractive summary", () => {
  test("keeps the best sentences, verbatim, in transcript order, within the word budget", () => {
    const { summary } = summarizeExtractively({ title: "Weekly meeting", segments });
    const kept = splitSentences([{ start: 0, end: 0, text: summary! }]).map((s) => s.text);
    const all = segments.map((s) => s.text);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.every((k) => all.includes(k))).toBe(true);
    expect(kept.map((k) => all.indexOf(k))).toEqual([...kept.map((k) => all.indexOf(k))].sort((a, b) => a - b));
    expect(summary!.split(/\s+/).length).toBeLessThanOrEqual(120);
    expect(summary).not.toContain("Thanks, that is all for today.");
    // Both subjects are represented.
    expect(summary).toMatch(/travel budget/);
    expect(summary).toMatch(/engineers/);
  });

  test("central sentences outrank asides", () => {
    const sentences = splitSentences(segments);
    const scores = rankSentences(sentences);
    const aside = sentences.findIndex((s) => s.text.startsWith("Thanks"));
    expect(scores[aside]).toBeLessThan(Math.max(...scores) / 2);
    expect(extractSummary(sentences, scores, 15)!.split(". ").length).toBe(1);
  });

  test("a short or empty transcript", () => {
    expect(summarizeExtractively({ title: "T", segments: [{ start: 0, end: 1000, text: "Only this." }] }).summary).toBe("Only this.");
    expect(summarizeExtractively({ title: "T", segments: [] })).toEqual({ summary: null, mindmap: null });
  });
});

describe("mind map", () => {
  test("a Markdown outline: the title, one topic per subject named by its key phrase, key points under each", () => {
    const { mindmap } = summarizeExtractively({ title: "Weekly meeting", segments });
    const lines = mindmap!.split("\n").filter(Boolean);
    expect(lines[0]).toBe("# Weekly meeting");
    const topics = lines.filter((l) => l.startsWith("## "));
    expect(topics.length).toBe(2);
    expect(topics[0]!.toLowerCase()).toContain("travel budget");
    expect(topics[1]!.toLowerCase()).toMatch(/engineer|interview|hiring/);
    const firstTopic = lines.indexOf(topics[0]!);
    const secondTopic = lines.indexOf(topics[1]!);
    expect(lines.slice(firstTopic + 1, secondTopic).every((l) => l.startsWith("- "))).toBe(true);
    expect(lines.slice(firstTopic + 1, secondTopic).some((l) => l.includes("travel budget"))).toBe(true);
    expect(lines.slice(secondTopic + 1).some((l) => l.includes("engineers"))).toBe(true);
  });

  test("the topics follow the change of vocabulary", () => {
    expect(sectionBoundaries(splitSentences(segments), 2)).toEqual([6]);
  });

  test("without a title the main key phrase heads the map", () => {
    const sentences = splitSentences(segments.slice(0, 6));
    expect(buildMindMap("", sentences, rankSentences(sentences))!.split("\n")[0]).toBe("# Travel budget");
  });
});

describe("text analysis", () => {
  test("key phrases: repeated runs of content words first", () => {
    expect(keyPhrases(budget)[0]!.phrase).toBe("travel budget");
  });
  test("a light stem", () => {
    expect(["topics", "topic's", "studies", "meetings", "planned"].map(stem)).toEqual(["topic", "topic", "study", "meet", "plann"]);
  });
});

describe("on a thread of its own", () => {
  test("a long transcript is summarised on the summary thread, to the same result, while this thread stays free", async () => {
    const topics = [
      "the river flooded the lower town",
      "engineers rebuilt the old stone bridge",
      "the council voted on a new budget",
      "farmers planted wheat in the valley",
    ];
    const segments = Array.from({ length: 3000 }, (_, i) => ({
      start: i * 1000,
      end: i * 1000 + 900,
      text: `In part ${i % 40}, ${topics[i % 4]} after ${i % 7} days.`,
      tokens: ["ignored"],
    }));
    const input = { title: "Town meeting", segments };
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const started = performance.now();
    const threaded = await new ExtractiveSummarizer().summarize(input);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(threaded).toEqual(summarizeExtractively(input));
    // The timer kept firing while the thread worked: this thread was not blocked.
    expect(ticks).toBeGreaterThan(Math.min(5, elapsed / 5 / 4));
  });
});
