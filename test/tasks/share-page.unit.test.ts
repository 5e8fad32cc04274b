/**
 * The share page as the server draws it (src/tasks/share-page.ts): the head's title and meta for link previews, and
 * the article in pieces; names and text escaped, bidirectional controls dropped, the description cut at a word.
 */
import { describe, expect, test } from "bun:test";
import { plainSharePage, shareArticle, shareHead, type Shared } from "../../src/tasks/share-page.ts";
import { headHtml } from "../../src/http/html.ts";

const task = (over: Partial<Shared> = {}): Shared => ({
  id: 7,
  name: "Weekly",
  duration: 3725,
  created_at: "2025-03-01T10:20:30.000Z",
  summary: null,
  segments: [{ start: 0, end: 1000, text: "Hello there.", speaker: "Ann" }],
  ...over,
});

const contentOf = (head: ReturnType<typeof shareHead>, key: string) => head.meta.find((m) => m.property === key || m.name === key)?.content;

describe("the head", () => {
  test("a name with U+202E cannot show “gnp.exe” as “exe.png”: the controls are gone, in the title and every meta", () => {
    const head = shareHead(task({ name: "\u202egnp.exe\u202c \u2067x\u2069" }));
    expect(head.title).toBe("gnp.exe x");
    expect(contentOf(head, "og:title")).toBe("gnp.exe x");
    expect(headHtml(head)).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
  });

  test("a blank name is a shared transcript", () => {
    expect(shareHead(task({ name: "  \u202e " })).title).toBe("Shared transcript");
  });

  test("the description is the summary on one line, cut at a word with an ellipsis, never inside a surrogate pair", () => {
    const words = "word ".repeat(100);
    const cut = contentOf(shareHead(task({ summary: `First paragraph.\n\n${words}` })), "og:description")!;
    expect(cut.length).toBeLessThanOrEqual(200);
    expect(cut).toStartWith("First paragraph. word word");
    expect(cut).toEndWith("word…");
    const emoji = contentOf(shareHead(task({ summary: "😀".repeat(150) })), "og:description")!;
    expect(emoji).toEndWith("😀…");
    expect(emoji.length).toBeLessThanOrEqual(200);
    expect(() => encodeURIComponent(emoji)).not.toThrow();
  });

  test("without a summary, the start of what was said; without either, a sentence of ours", () => {
    expect(contentOf(shareHead(task()), "og:description")).toBe("Hello there.");
    expect(contentOf(shareHead(task({ segments: [] })), "description")).toBe("A transcript shared from Scribe.");
  });

  test("Open Graph and Twitter's card", () => {
    const head = shareHead(task());
    expect(contentOf(head, "og:type")).toBe("article");
    expect(contentOf(head, "og:site_name")).toBe("Scribe");
    expect(contentOf(head, "twitter:card")).toBe("summary");
    expect(headHtml(head)).toContain('<meta property="og:title" content="Weekly">');
  });
});

describe("the article", () => {
  test("the app's markup with plain text: heading, when and how long, times and speakers, the summary's paragraphs", () => {
    const html = [...shareArticle(task({ summary: "One.\n\nTwo <b>." }))].join("");
    expect(html).toContain('<article class="transcript-page shared" data-share-task="7">');
    expect(html).toContain('Shared transcript · <time datetime="2025-03-01T10:20:30.000Z">2025-03-01 10:20 UTC</time> · 1 h 02 min');
    expect(html).toContain(
      '<li class="segment"><p class="segment-seek"><span class="segment-meta"><span class="segment-time">0:00</span><span class="segment-speaker">Ann</span></span><span class="segment-text">Hello there.</span></p></li>',
    );
    expect(html).toContain("<p>One.</p>\n<p>Two &lt;b&gt;.</p>");
  });

  test("a date that is no date is left out", () => {
    expect([...shareArticle(task({ created_at: "yesterday" }))].join("")).toContain("Shared transcript · 1 h 02 min");
  });

  test("segments come in pieces of a few hundred, and the plain page wraps them with its head", () => {
    const segments = Array.from({ length: 1234 }, (_, i) => ({ start: i * 1000, end: i * 1000 + 900, text: `Line ${i}`, speaker: null }));
    const pieces = [...shareArticle(task({ segments }))];
    expect(pieces.filter((piece) => piece.includes('<li class="segment">')).length).toBe(3);
    const plain = [...plainSharePage(task({ segments }))].join("");
    expect(plain).toStartWith("<!doctype html>");
    expect(plain).toContain("<title>Weekly · Scribe</title>");
    expect(plain.match(/<li class="segment">/g)?.length).toBe(1234);
  });
});
