import { staticAsset, type StaticAsset } from "../http/static-assets.ts";
import { headHtml, type PageContent } from "../http/html.ts";
import type { WebBuild } from "./build.ts";

/** What the browser app learns from the server before its first request: only what the API cannot tell it. */
export type WebConfig = {
  /** Whether "Sign in with idp" is offered: an identity provider is configured (IDP_ISSUER). */
  idp: boolean;
};

/**
 * Everything the page may load comes from this origin: no CDN script, font or stylesheet, no inline script
 * (the configuration travels as inert JSON), no framing. `blob:` media for players fed from an
 * authenticated fetch; `data:` images for the empty favicon and inline icons. `storageOrigins`: where the
 * browser PUTs upload parts besides this origin — S3's, in the cluster profile, whose presigned URLs point there.
 */
export function contentSecurityPolicy(storageOrigins: readonly string[] = []): string {
  const storage = storageOrigins.map((origin) => ` ${origin}`).join("");
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    `connect-src 'self'${storage}`,
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** Headers of every HTML answer of the app. */
export function shellHeaders(storageOrigins: readonly string[] = []): Record<string, string> {
  return {
    "content-security-policy": contentSecurityPolicy(storageOrigins),
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
  };
}

/** `<` in the JSON would let a value close the script element; as \u003c it stays inert. */
const inertJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** The page around what a route draws in it: the head's start and end (the title and meta go between), and the body's. */
type Frame = { start: string; end: string; bodyStart: string; bodyEnd: string };

function frame(build: WebBuild, config: WebConfig): Frame {
  const styles = build.entry.styles.map((name) => `<link rel="stylesheet" href="/assets/${name}">`).join("");
  return {
    start: `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">`,
    end: `<link rel="icon" href="data:,">
${styles}<script type="module" src="/assets/${build.entry.script}"></script>
<script type="application/json" id="scribe-config">${inertJson(config)}</script>
</head><body><div id="app"></div>`,
    bodyStart: `<div id="prerendered" class="prerendered">\n`,
    bodyEnd: "</div></body></html>\n",
  };
}

/**
 * The one HTML page of the app: it names the current bundles (content-hashed, cached for good), so it is
 * revalidated on every navigation. The client-side router draws the page for the path.
 */
export function shellPage(build: WebBuild, config: WebConfig): StaticAsset {
  const { start, end } = frame(build, config);
  const html = `${start}<title>Scribe</title>${end}<noscript>Scribe's web app needs JavaScript.</noscript></body></html>\n`;
  return staticAsset(new TextEncoder().encode(html), "text/html; charset=utf-8");
}

/**
 * The app's page with what the server drew of it (the share page's transcript): its title and meta in the head, its
 * HTML beside the app's root in `#prerendered`, which readers without script and link previews read, and which the
 * app's page takes over once it has drawn its own (src/web/app/share/prerendered.ts). Sent in pieces as made.
 */
export function* drawnPage(build: WebBuild, config: WebConfig, content: PageContent): Generator<string> {
  const { start, end, bodyStart, bodyEnd } = frame(build, config);
  yield `${start}${headHtml(content)}${end}${bodyStart}`;
  yield* content.body;
  yield bodyEnd;
}
