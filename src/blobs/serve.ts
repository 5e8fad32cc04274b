import type { BlobStore, ByteRange } from "./port.ts";

/**
 * An object as an HTTP response, on any blob store: one `Range: bytes=` honoured (206 with Content-Range,
 * 416 with `bytes *\/size` when unsatisfiable), Content-Type and Content-Length set. A store that keeps
 * bytes on local disk hands over a file Blob, which Bun sends with sendfile; others stream the (ranged)
 * body. null when there is no such object. `headers` are the caller's (security, caching) and are kept.
 */
export async function serveBlob(blobs: BlobStore, key: string, request: Request, headers: Headers): Promise<Response | null> {
  const local = blobs.localFile ? await blobs.localFile(key) : null;
  const info = blobs.localFile ? local : await blobs.head(key);
  if (!info) return null;
  let range: ByteRange | null = null;
  const rangeHeader = request.headers.get("range");
  if (rangeHeader) {
    const parsed = parseRange(rangeHeader, info.size);
    if (parsed === "unsatisfiable") {
      headers.set("content-range", `bytes */${info.size}`);
      headers.set("content-type", "application/json");
      return new Response(JSON.stringify({ message: "Range not satisfiable." }), { status: 416, headers });
    }
    range = parsed;
  }
  const { start, end } = range ?? { start: 0, end: info.size - 1 };
  headers.set("accept-ranges", "bytes");
  headers.set("content-type", info.contentType);
  headers.set("content-length", String(Math.max(0, end - start + 1)));
  if (range) headers.set("content-range", `bytes ${start}-${end}/${info.size}`);
  const status = range ? 206 : 200;
  // A file slice, not a stream: Bun then keeps Content-Length (also for HEAD, where it sends no body).
  if (local) return new Response(local.file.slice(start, end + 1, info.contentType), { status, headers });
  const read = await blobs.get(key, range ? { range } : {});
  if (!read) return null;
  return new Response(read.body, { status, headers });
}

/**
 * One `bytes=` range (start-end, start-, or -suffix) resolved against the size; null means "ignore
 * the header and send everything" (several ranges, or a syntax we do not serve), as RFC 9110 allows.
 */
export function parseRange(header: string, size: number): ByteRange | null | "unsatisfiable" {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  if (start >= size) return "unsatisfiable";
  const end = match[2] === "" ? size - 1 : Number(match[2]);
  if (end < start) return null;
  return { start, end: Math.min(end, size - 1) };
}
