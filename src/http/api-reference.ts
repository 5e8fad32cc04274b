import { Elysia } from "elysia";
import { dirname, join } from "node:path";
import { swagger } from "@elysiajs/swagger";
import { immutable, revalidate, serveStatic, staticAsset, type StaticAsset } from "./static-assets.ts";

/**
 * The script of the API reference at `/swagger` (Scalar's standalone bundle), served by us from the npm
 * package package.json pins to an exact version, instead of a public CDN's `@latest`: the page works
 * offline and shows the same reference on every install. The version is in the path, so the script is
 * cached for good and an upgrade is a new URL.
 */
const packageDir = join(dirname(Bun.resolveSync("@scalar/api-reference", import.meta.dir)), "..");
const { version } = (await Bun.file(join(packageDir, "package.json")).json()) as { version: string };

export const apiReferenceScriptPath = `/swagger/assets/api-reference-${version}.js`;

/**
 * What the page's configuration turns off: the fonts Scalar would fetch from its own CDN (the system's are
 * used), and everything that calls scalar.com — its request proxy, telemetry, the "Ask AI" agent, MCP and the
 * developer tools (share, deploy). "Test request" stays: it calls this API directly.
 */
export const offlineScalarConfig = {
  withDefaultFonts: false,
  proxyUrl: "",
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
} as const;

/**
 * The page's Content-Security-Policy: scripts from this origin, and the page's one inline script element (where
 * @elysiajs/swagger puts Scalar's configuration, as data attributes; its content is whitespace) by its hash, so no
 * 'unsafe-inline'; the inline styles Scalar writes into the page; the document, and "Test request" calls to this
 * origin and to the servers the document names (PUBLIC_URL, which may be another name of this service); nothing
 * framed, nothing framing it. Checked in Chromium (test/http/page-headers.e2e.test.ts): the reference draws and
 * sends a test request with no violation.
 */
export function apiReferencePolicy(serverOrigins: readonly string[] = [], inlineScriptHashes: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `script-src 'self'${inlineScriptHashes.map((hash) => ` '${hash}'`).join("")}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${serverOrigins.map((origin) => ` ${origin}`).join("")}`,
    "worker-src 'self' blob:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-src 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** The CSP hash sources of a page's inline scripts (those without `src`). */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map(
    ([, body]) => `sha256-${new Bun.CryptoHasher("sha256").update(body ?? "").digest("base64")}`,
  );
}

let asset: Promise<StaticAsset> | null = null;
/** Read and compressed on the first request (4 MiB, about 1 s of brotli), not at every start. */
const script = () =>
  (asset ??= Bun.file(join(packageDir, "dist", "browser", "standalone.js"))
    .bytes()
    .then((bytes) => staticAsset(bytes, "text/javascript; charset=utf-8")));

/**
 * The API reference at `path`: @elysiajs/swagger's page (Scalar) showing the document at `documentUrl` (ours,
 * buildOpenApi's), with our pinned script and a policy of its own. The plugin serves its page as a static
 * response, which no hook can give headers to, so it is rendered once by a private instance of the plugin and
 * served from here with the policy worked out from it.
 */
export function apiReferenceRoutes(options: { path?: string; title: string; description?: string; documentUrl: string; serverUrls: readonly string[] }) {
  const { path = "/swagger", title, description = "", documentUrl, serverUrls } = options;
  const origins = serverUrls.flatMap((url) => (URL.canParse(url) ? [new URL(url).origin] : []));
  const plugin = new Elysia().use(
    swagger({
      path: "/page",
      specPath: "/plugin-document.json",
      scalarCDN: apiReferenceScriptPath,
      scalarConfig: { ...offlineScalarConfig, spec: { url: documentUrl } },
      documentation: { info: { title, description, version: "" } },
    }),
  );
  let page: Promise<StaticAsset> | null = null;
  let policy = "";
  const rendered = () =>
    (page ??= plugin.handle(new Request("http://localhost/page")).then(async (response) => {
      const html = await response.text();
      policy = apiReferencePolicy(origins, inlineScriptHashes(html));
      return staticAsset(new TextEncoder().encode(html), "text/html; charset=utf-8");
    }));
  return new Elysia({ name: "api-reference" })
    .get(path, async ({ request }) => serveStatic(await rendered(), request, revalidate, { "content-security-policy": policy }), { detail: { hide: true } })
    .get(apiReferenceScriptPath, async ({ request }) => serveStatic(await script(), request, immutable), { detail: { hide: true } });
}
