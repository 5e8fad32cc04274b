import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";
import { NoSuchUploadError } from "../../src/blobs/port.ts";
import { storageRoutes } from "../../src/blobs/storage-routes.ts";
import { blobStoreContract, bytes } from "../contracts/blobs.contract.ts";

/** A FileBlobStore under a temp dir, its signed URLs served by the real Elysia routes on a free port. */
async function openServed(): Promise<{ store: FileBlobStore; root: string; close(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), "scribe-blobs-"));
  const secret = "test-secret";
  // The store keeps no state beyond the directory, so the one serving requests can be built before
  // the port (and so the public URL) is known, and the one signing after.
  const app = new Elysia().use(storageRoutes((request) => new FileBlobStore({ root, publicUrl: "http://unused", secret }).serveSignedRequest(request)));
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const store = new FileBlobStore({ root, publicUrl: `http://127.0.0.1:${app.server!.port}`, secret });
  return {
    store,
    root,
    async close() {
      await app.stop(true);
      await rm(root, { recursive: true, force: true });
    },
  };
}

blobStoreContract("filesystem", openServed);

describe("FileBlobStore over HTTP", () => {
  let ctx: Awaited<ReturnType<typeof openServed>>;
  beforeAll(async () => {
    ctx = await openServed();
  });
  afterAll(async () => {
    await ctx.close();
  });

  async function stored(key: string, size = 100): Promise<Uint8Array<ArrayBuffer>> {
    const data = bytes(size);
    await ctx.store.put(key, data, { contentType: "audio/mpeg" });
    return data;
  }

  test("a tampered signature, key or download name is refused with 403 JSON", async () => {
    await stored("t/a.mp3");
    await stored("t/b.mp3");
    const { url } = await ctx.store.signGet("t/a.mp3", { expiresInSeconds: 60, downloadName: "a.mp3" });
    const tampered = [
      url.replace(/signature=.(.)/, (m, c: string) => m.slice(0, -1) + (c === "A" ? "B" : "A")),
      url.replace("t/a.mp3", "t/b.mp3"),
      url.replace("name=a.mp3", "name=evil.html"),
      url.replace(/expires=\d+/, "expires=99999999999"),
      url.replace(/&signature=[^&]*/, ""),
    ];
    for (const bad of tampered) {
      const response = await fetch(bad);
      expect(response.status).toBe(403);
      expect(response.headers.get("content-type")).toBe("application/json");
      expect(((await response.json()) as { message: string }).message).toContain("signature");
    }
    // A part-upload signature does not grant reading the object either.
    const { uploadId } = await ctx.store.createMultipartUpload("t/a.mp3", { contentType: "audio/mpeg" });
    const put = await ctx.store.signUploadPart("t/a.mp3", uploadId, 1, { expiresInSeconds: 60 });
    expect((await fetch(put.url)).status).toBe(403);
  });

  test("an expired signature is refused with 403", async () => {
    await stored("t/expired.mp3");
    const { url } = await ctx.store.signGet("t/expired.mp3", { expiresInSeconds: -1 });
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ message: "invalid or expired signature" });
  });

  test("Range requests get 206 with Content-Range; unsatisfiable ones 416", async () => {
    const data = await stored("t/range.mp3", 1000);
    const { url } = await ctx.store.signGet("t/range.mp3", { expiresInSeconds: 60 });
    const cases: Array<[string, number, number]> = [
      ["bytes=100-199", 100, 199],
      ["bytes=900-", 900, 999],
      ["bytes=-10", 990, 999],
      ["bytes=950-5000", 950, 999],
    ];
    for (const [range, start, end] of cases) {
      const response = await fetch(url, { headers: { range } });
      expect(response.status).toBe(206);
      expect(response.headers.get("content-range")).toBe(`bytes ${start}-${end}/1000`);
      expect(response.headers.get("content-length")).toBe(String(end - start + 1));
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(data.subarray(start, end + 1));
    }
    const unsatisfiable = await fetch(url, { headers: { range: "bytes=1000-" } });
    expect(unsatisfiable.status).toBe(416);
    expect(unsatisfiable.headers.get("content-range")).toBe("bytes */1000");
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("accept-ranges")).toBe("bytes");
    expect(whole.headers.get("content-length")).toBe("1000");
    await whole.arrayBuffer();
  });

  test("a signed URL for a deleted object is 404 JSON", async () => {
    await stored("t/gone.mp3");
    const { url } = await ctx.store.signGet("t/gone.mp3", { expiresInSeconds: 60 });
    await ctx.store.delete("t/gone.mp3");
    const response = await fetch(url);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ message: "no such object" });
  });

  test("path traversal is impossible", async () => {
    await stored("t/secret.mp3");
    const { url } = await ctx.store.signGet("t/secret.mp3", { expiresInSeconds: 60 });
    const { port, search } = new URL(url);
    // Raw request lines: fetch would normalise "..", an attacker's client need not.
    const escapes = [
      "/storage/../../etc/passwd",
      "/storage/t/../../../etc/passwd",
      "/storage/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
      "/storage/t%2f..%2f..%2fetc%2fpasswd",
      "/storage/t%2fsecret.mp3%00",
      "/storage/~uploads/x",
      "/storage//etc/passwd",
      "/storage/t\\..\\secret.mp3",
    ];
    for (const path of escapes) expect([400, 403, 404]).toContain(await rawStatus(Number(port), path + search));
    // Bun resolves dot segments before routing; these name the signed key itself, so they may pass.
    for (const path of ["/storage/t/../t/secret.mp3", "/storage/t/./secret.mp3"]) expect(await rawStatus(Number(port), path + search)).toBe(200);
    expect(await rawStatus(Number(port), `/storage/t/secret.mp3${search}`)).toBe(200);
    for (const key of ["../x", "/etc/passwd", "a/../../b", "a//b", "~tmp/x", "a\\b", "a/./b"]) {
      await expect(ctx.store.put(key, bytes(1), { contentType: "text/plain" })).rejects.toBeInstanceOf(TypeError);
      await expect(ctx.store.signGet(key, { expiresInSeconds: 60 })).rejects.toBeInstanceOf(TypeError);
    }
    await expect(ctx.store.listParts("t/secret.mp3", "../../t")).rejects.toBeInstanceOf(NoSuchUploadError);
  });

  test("a part PUT is streamed, capped at its Content-Length, and refused when unknown", async () => {
    const { uploadId } = await ctx.store.createMultipartUpload("t/up.wav", { contentType: "audio/wav" });
    const signed = await ctx.store.signUploadPart("t/up.wav", uploadId, 1, { expiresInSeconds: 60 });
    // In process (no socket), so the declared length and the body can disagree.
    const larger = await ctx.store.serveSignedRequest(
      new Request(signed.url, { method: "PUT", headers: { "content-length": "10" }, body: streamOf(bytes(50)) }),
    );
    expect(larger.status).toBe(413);
    const shorter = await ctx.store.serveSignedRequest(
      new Request(signed.url, { method: "PUT", headers: { "content-length": "100" }, body: streamOf(bytes(50)) }),
    );
    expect(shorter.status).toBe(400);
    expect(await ctx.store.listParts("t/up.wav", uploadId)).toEqual([]);
    // Nothing half-written is left behind.
    expect((await readdir(join(ctx.root, "~uploads", uploadId))).sort()).toEqual(["upload.json"]);

    const ok = await fetch(signed.url, { method: "PUT", body: bytes(50) });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("etag")).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await ctx.store.listParts("t/up.wav", uploadId)).toEqual([{ partNumber: 1, size: 50, etag: ok.headers.get("etag")! }]);

    await ctx.store.abortMultipartUpload("t/up.wav", uploadId);
    const afterAbort = await fetch(signed.url, { method: "PUT", body: bytes(5) });
    expect(afterAbort.status).toBe(404);
    expect(await afterAbort.json()).toEqual({ message: "no such upload" });
  });

  test("a part PUT through the Elysia route is written to disk while it arrives, not buffered", async () => {
    const { uploadId } = await ctx.store.createMultipartUpload("t/streamed.wav", { contentType: "audio/wav" });
    const signed = await ctx.store.signUploadPart("t/streamed.wav", uploadId, 1, { expiresInSeconds: 60 });
    const url = new URL(signed.url);
    const total = 8 * 1024 * 1024;
    const half = new Uint8Array(total / 2).fill(7);
    let response = "";
    // A raw connection, so the test decides when the second half is sent: the first half must be on
    // disk before it is, which a server that reads the whole body first can never do.
    const socket = await Bun.connect({
      hostname: url.hostname,
      port: Number(url.port),
      socket: { data: (_socket, data) => void (response += new TextDecoder().decode(data)) },
    });
    const send = async (data: Uint8Array) => {
      for (let offset = 0; offset < data.length; ) {
        const written = socket.write(data.subarray(offset));
        offset += written;
        if (written === 0) await Bun.sleep(1);
      }
    };
    await send(new TextEncoder().encode(`PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Length: ${total}\r\n\r\n`));
    await send(half);
    const partDir = join(ctx.root, "~uploads", uploadId);
    const onDisk = async () => {
      const names = await readdir(partDir).catch(() => [] as string[]);
      const sizes = await Promise.all(names.filter((n) => n.startsWith("1")).map(async (n) => await Bun.file(join(partDir, n)).size));
      return Math.max(0, ...sizes);
    };
    const deadline = Date.now() + 5000;
    while ((await onDisk()) < half.length / 2 && Date.now() < deadline) await Bun.sleep(10);
    expect(await onDisk()).toBeGreaterThanOrEqual(half.length / 2);
    expect(response).toBe("");
    await send(half);
    while (!response.includes("\r\n\r\n") && Date.now() < deadline + 5000) await Bun.sleep(10);
    socket.end();
    expect(response).toStartWith("HTTP/1.1 200");
    expect((await ctx.store.listParts("t/streamed.wav", uploadId))[0]?.size).toBe(total);
    await ctx.store.abortMultipartUpload("t/streamed.wav", uploadId);
  });

  test("removeExpiredUploads deletes only old uploads", async () => {
    const old = await ctx.store.createMultipartUpload("t/old.wav", { contentType: "audio/wav" });
    const fresh = await ctx.store.createMultipartUpload("t/fresh.wav", { contentType: "audio/wav" });
    const removed = await ctx.store.sweepAbandonedUploads(60_000, Date.now() + 61_000);
    expect(removed).toBeGreaterThanOrEqual(2);
    await expect(ctx.store.listParts("t/old.wav", old.uploadId)).rejects.toBeInstanceOf(NoSuchUploadError);
    const kept = await ctx.store.createMultipartUpload("t/kept.wav", { contentType: "audio/wav" });
    expect(await ctx.store.sweepAbandonedUploads(60_000)).toBe(0);
    expect(await ctx.store.listParts("t/kept.wav", kept.uploadId)).toEqual([]);
    expect(fresh.uploadId).not.toBe(old.uploadId);
  });

  test("a large body is read in bounded chunks", async () => {
    const data = bytes(3 * 1024 * 1024 + 17);
    await ctx.store.put("t/big.bin", data, { contentType: "application/octet-stream" });
    const read = await ctx.store.get("t/big.bin");
    const reader = read!.body.getReader();
    let largest = 0;
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      largest = Math.max(largest, value.byteLength);
      total += value.byteLength;
    }
    expect(total).toBe(data.byteLength);
    expect(largest).toBeLessThanOrEqual(256 * 1024);
  });
});

function streamOf(data: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(data);
      controller.close();
    },
  });
}

/** Sends a request line exactly as given and returns the status code. */
async function rawStatus(port: number, path: string): Promise<number> {
  let text = "";
  const done = Promise.withResolvers<void>();
  const socket = await Bun.connect({
    hostname: "127.0.0.1",
    port,
    socket: {
      data(_socket, chunk) {
        text += new TextDecoder().decode(chunk);
      },
      close() {
        done.resolve();
      },
      error(_socket, error) {
        done.reject(error);
      },
    },
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  await done.promise;
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
}
