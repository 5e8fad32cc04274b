import { headHtml, htmlText, withoutControls, type PageContent } from "../http/html.ts";

/** A shared task as the share page shows it (the share JSON's fields). */
export type Shared = {
  id: number;
  name: string;
  duration: number;
  created_at: string;
  summary: string | null;
  segments: readonly { start: number; end: number; text: string; speaker: string | null }[];
};

/** Segments per piece of the page: big enough that a piece costs next to nothing to send, small enough to stay a few hundred KB. */
const segmentsPerPiece = 500;
/** How much of the summary a link preview gets: about what chat apps and search results show. */
const descriptionLength = 200;

/** "1:05", "1:02:03": as the app's segment list shows times (src/web/app/transcript/segments.ts). */
function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total / 60) % 60;
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** "45 s", "12 min", "1 h 05 min": as the app says a duration (src/web/app/ui/format.ts). */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  return hours > 0 ? `${hours} h ${String(minutes).padStart(2, "0")} min` : `${minutes} min`;
}

/** At most `length` characters of the text on one line, cut at a word with "…" (never inside a surrogate pair). */
function cut(text: string, length: number): string {
  const line = withoutControls(text).replace(/\s+/g, " ").trim();
  if (line.length <= length) return line;
  let end = line.lastIndexOf(" ", length - 1);
  if (end < length / 2) end = length - 1;
  if (/[\ud800-\udbff]/.test(line.charAt(end - 1))) end--;
  return `${line.slice(0, end).trimEnd()}…`;
}

/** What a link preview says about the transcript: its summary, or the start of what was said. */
function description(shared: Shared): string {
  if (shared.summary?.trim()) return cut(shared.summary, descriptionLength);
  let said = "";
  for (const segment of shared.segments) {
    said += ` ${segment.text}`;
    if (said.length > descriptionLength) break;
  }
  return said.trim() ? cut(said, descriptionLength) : "A transcript shared from Scribe.";
}

const title = (shared: Shared) => withoutControls(shared.name).trim() || "Shared transcript";

/** The page's title and its meta for link previews (Open Graph, Twitter's card) and search engines. */
export function shareHead(shared: Shared): Omit<PageContent, "body"> {
  const name = title(shared);
  const about = description(shared);
  return {
    title: name,
    meta: [
      { name: "description", content: about },
      { property: "og:type", content: "article" },
      { property: "og:site_name", content: "Scribe" },
      { property: "og:title", content: name },
      { property: "og:description", content: about },
      { name: "twitter:card", content: "summary" },
      { name: "twitter:title", content: name },
      { name: "twitter:description", content: about },
    ],
  };
}

/** When it was made, in UTC (the reader's own time zone is the app's to show). */
function madeAt(iso: string): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return "";
  const at = new Date(time).toISOString();
  return ` · <time datetime="${at}">${at.slice(0, 10)} ${at.slice(11, 16)} UTC</time>`;
}

function segmentHtml(segment: Shared["segments"][number]): string {
  const speaker = segment.speaker ? `<span class="segment-speaker">${htmlText(segment.speaker)}</span>` : "";
  const meta = `<span class="segment-meta"><span class="segment-time">${clock(segment.start)}</span>${speaker}</span>`;
  return `<li class="segment"><p class="segment-seek">${meta}<span class="segment-text">${htmlText(segment.text)}</span></p></li>\n`;
}

/**
 * The shared transcript as HTML, in pieces: title, when and how long, the segments with their times and speakers, and
 * the summary. Its markup is the app's share page's (src/web/app/pages/share.tsx) with plain text where the app has
 * buttons, so the app, which draws its own with the player, swaps it without a jump; everything from the task is
 * escaped. `data-share-task` tells the app which task it shows.
 */
export function* shareArticle(shared: Shared): Generator<string> {
  const when = `Shared transcript${madeAt(shared.created_at)} · ${duration(shared.duration)}`;
  yield `<article class="transcript-page shared" data-share-task="${shared.id}">
<header class="transcript-header"><h1>${htmlText(title(shared))}</h1><p class="muted">${when}</p></header>
<div class="transcript-layout"><div class="transcript-main"><section aria-labelledby="shared-transcript-title"><h2 id="shared-transcript-title">Transcript</h2>
`;
  if (shared.segments.length === 0) yield `<p class="muted">No transcript yet.</p>\n`;
  else {
    yield `<ol class="segments">\n`;
    for (let from = 0; from < shared.segments.length; from += segmentsPerPiece) {
      let piece = "";
      for (const segment of shared.segments.slice(from, from + segmentsPerPiece)) piece += segmentHtml(segment);
      yield piece;
    }
    yield "</ol>\n";
  }
  yield "</section></div>\n";
  const paragraphs = (shared.summary ?? "").split(/\n\s*\n/).filter((paragraph) => paragraph.trim() !== "");
  if (paragraphs.length > 0) {
    yield `<aside class="transcript-side" aria-label="Summary"><section aria-labelledby="shared-summary" class="summary"><h2 id="shared-summary">Summary</h2>
${paragraphs.map((paragraph) => `<p>${htmlText(paragraph.trim())}</p>`).join("\n")}
</section></aside>\n`;
  }
  yield "</div></article>\n";
}

const plainStyle =
  "body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}.muted{color:#666}" +
  ".segments{list-style:none;padding:0}.segment p{margin:.4rem 0}.segment-time{color:#777;font-variant-numeric:tabular-nums;margin-right:.5rem}" +
  ".segment-speaker{font-weight:700;margin-right:.5rem}.summary{background:#f5f5f5;padding:.5rem 1rem;border-radius:.5rem}";

/** A page of its own, with no script (for clients that ask for neither HTML nor JSON, and without the web app). */
export function* plainSharePage(shared: Shared): Generator<string> {
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${headHtml(shareHead(shared))}<style>${plainStyle}</style>
</head><body>
`;
  yield* shareArticle(shared);
  yield "</body></html>\n";
}
