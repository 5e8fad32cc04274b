import { Elysia } from "elysia";
import { dirname, join } from "node:path";
import { immutable, serveStatic, staticAsset, type StaticAsset } from "./static-assets.ts";

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

let asset: Promise<StaticAsset> | null = null;
/** Read and compressed on the first request (4 MiB, about 1 s of brotli), not at every start. */
const script = () =>
  (asset ??= Bun.file(join(packageDir, "dist", "browser", "standalone.js"))
    .bytes()
    .then((bytes) => staticAsset(bytes, "text/javascript; charset=utf-8")));

export const apiReferenceRoutes = new Elysia({ name: "api-reference-script" }).get(
  apiReferenceScriptPath,
  async ({ request }) => serveStatic(await script(), request, immutable),
  { detail: { hide: true } },
);
