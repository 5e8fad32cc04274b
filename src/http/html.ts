import { accepts } from "./static-assets.ts";

/**
 * Bidirectional embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069), and the C0 controls but
 * tab and line breaks. A name is user input: with U+202E in it "gnp.exe" shows as "exe.png", and what it overrides
 * spills over the text after it. Right-to-left text needs none of them (the marks U+200E and U+200F stay).
 */
const unwanted = /[\u202a-\u202e\u2066-\u2069\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

const references: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** User text as HTML, for an element's content or a quoted attribute's value: escaped, without the controls above. */
export const htmlText = (text: string): string => text.replace(unwanted, "").replace(/[&<>"']/g, (c) => references[c]!);

/** Plain text without the controls above (a `<meta>` description that is cut to length first, for instance). */
export const withoutControls = (text: string): string => text.replace(unwanted, "");

/** A `<meta>` element: Open Graph's are named by `property`, the others by `name`; `content` is plain text. */
export type PageMeta = { property?: string; name?: string; content: string };

/** A page's own title and meta (plain text, escaped by `headHtml`), and its body's HTML in pieces. */
export type PageContent = { title: string; meta: readonly PageMeta[]; body: Iterable<string> };

/** The `<title>` ("… · Scribe", as the app titles its pages) and `<meta>` elements of a page's head, escaped. */
export function headHtml(head: Omit<PageContent, "body">): string {
  const meta = head.meta.map(({ property, name, content }) => {
    const key = property === undefined ? `name="${htmlText(name ?? "")}"` : `property="${htmlText(property)}"`;
    return `<meta ${key} content="${htmlText(content)}">`;
  });
  return `<title>${htmlText(head.title)} · Scribe</title>\n${meta.join("\n")}\n`;
}

declare global {
  /**
   * Bun's typings take CompressionStream's members from @types/node's, whose version here has none: it is what the web
   * platform says, a transform of bytes to bytes.
   */
  interface CompressionStream {
    readonly readable: ReadableStream<Uint8Array>;
    readonly writable: WritableStream<Uint8Array>;
  }
}

const encoder = new TextEncoder();

/**
 * An HTML page from its pieces, sent as they are made: a page of a 100,000-segment transcript is tens of MB of HTML,
 * which is never one string; each piece is made when the client has taken the last (the stream's pull), and gzip
 * (which shrinks such a page about tenfold) goes along when the client accepts it.
 */
export function htmlResponse(pieces: Iterable<string>, request: Request, init: { status?: number; headers: Record<string, string> }): Response {
  const iterator = pieces[Symbol.iterator]();
  let body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    cancel() {
      iterator.return?.();
    },
  });
  const headers: Record<string, string> = {
    "content-type": "text/html; charset=utf-8",
    "x-content-type-options": "nosniff",
    vary: "Accept-Encoding",
    ...init.headers,
  };
  if (accepts(request.headers.get("accept-encoding") ?? "", "gzip")) {
    body = body.pipeThrough(new CompressionStream("gzip"));
    headers["content-encoding"] = "gzip";
  }
  return new Response(body, { status: init.status ?? 200, headers });
}
