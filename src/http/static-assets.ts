import { brotliCompressSync, constants, gzipSync } from "node:zlib";

/**
 * A file served as it is (the web app's bundles, the API reference's script), compressed once when it is
 * made: a request then costs a lookup, never a compression. Brotli where the browser takes it (about a fifth
 * smaller than gzip on our bundles), gzip otherwise, the plain bytes for a client that asks for neither.
 */
export type StaticAsset = {
  type: string;
  etag: string;
  body: Uint8Array;
  gzip: Uint8Array;
  br: Uint8Array;
};

/**
 * Brotli's quality 11 is its smallest output, and costs a few ms for the app's tens of KiB; a file of
 * megabytes (the API reference's script) takes quality 9, within a few percent of 11 at a tenth of the time.
 */
const brotliQuality = (size: number) => (size > 512 * 1024 ? 9 : constants.BROTLI_MAX_QUALITY);

export function staticAsset(body: Uint8Array, type: string): StaticAsset {
  return {
    type,
    etag: `"${Bun.hash(body).toString(36)}"`,
    body,
    gzip: gzipSync(body, { level: 9 }),
    br: brotliCompressSync(body, {
      params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality(body.length), [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
    }),
  };
}

/** Content-addressed names never change content: a year, and no revalidation. */
export const immutable = "public, max-age=31536000, immutable";
/** What must be fresh on every navigation (the HTML that names the current bundles). */
export const revalidate = "no-cache";

/** The q-value a client gives an encoding: 0 refuses it, an absent encoding is not offered. */
export function accepts(acceptEncoding: string, encoding: string): boolean {
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.trim().split(";");
    if (name.trim().toLowerCase() !== encoding) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** The asset in the best encoding the request accepts, with its validator; 304 when the client has it already. */
export function serveStatic(asset: StaticAsset, request: Request, cacheControl: string, extra: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    "content-type": asset.type,
    "cache-control": cacheControl,
    etag: asset.etag,
    vary: "Accept-Encoding",
    "x-content-type-options": "nosniff",
    ...extra,
  };
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
  const acceptEncoding = request.headers.get("accept-encoding") ?? "";
  let body = asset.body;
  if (accepts(acceptEncoding, "br")) {
    body = asset.br;
    headers["content-encoding"] = "br";
  } else if (accepts(acceptEncoding, "gzip")) {
    body = asset.gzip;
    headers["content-encoding"] = "gzip";
  }
  return new Response(body, { headers });
}
