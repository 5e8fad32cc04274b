import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia, type AnyElysia } from "elysia";
import { FileBlobStore, InvalidPartError, PartBusyError } from "../../src/blobs/filesystem.ts";
import { storageRoutes } from "../../src/blobs/storage-routes.ts";
import { bytes } from "../contracts/blobs.contract.ts";

// Uploads created with a part size: parts are written in place into one file and complete renames it
// (no copy). Served by the real routes on a free port, so bodies arrive as real HTTP requests.
let root: string;
let app: AnyElysia;
let store: FileBlobStore;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "scribe-inplace-"));
  const secret = "s";
  app = new Elysia().use(storageRoutes((request) => new FileBlobStore({ root, publicUrl: "http://unused", secret }).serveSignedRequest(request)));
  app.listen({ hostname: "127.0.0.1", port: 0 });
  store = new FileBlobStore({ root, publicUrl: `http://127.0.0.1:${app.server!.port}`, secret });
});
afterAll(async () => {
  await app.stop(true);
  await rm(root, { recursive: true, force: true });
});

const readAll = async (key: string) => new Uint8Array(await new Response((await store.get(key))!.body).arrayBuffer()) as Uint8Array;

test("parts sent in any order, re-sent, with and without Content-Length, assemble without a copy", async () => {
  const partSize = 1000;
  const data = bytes(2500, 4);
  const { uploadId } = await store.createMultipartUpload("t/in-place.mp3", { contentType: "audio/mpeg", partSize });
  const put = async (n: number, body: Uint8Array | ReadableStream<Uint8Array>, contentLength?: number) => {
    const signed = await store.signUploadPart("t/in-place.mp3", uploadId, n, {
      expiresInSeconds: 60,
      ...(contentLength === undefined ? {} : { contentLength }),
    });
    return fetch(signed.url, { method: "PUT", body });
  };
  expect((await put(3, data.subarray(2000))).status).toBe(200);
  expect((await put(1, bytes(1000, 9))).status).toBe(200); // wrong bytes first…
  expect((await put(1, data.subarray(0, 1000))).status).toBe(200); // …then re-sent
  // A chunked body (no Content-Length) goes through the capped path.
  const chunked = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(data.subarray(1000, 1500));
      c.enqueue(data.subarray(1500, 2000));
      c.close();
    },
  });
  expect((await put(2, chunked)).status).toBe(200);
  const tooLong = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new Uint8Array(1001));
      c.close();
    },
  });
  expect((await put(2, tooLong)).status).toBe(413);
  // The refused PUT invalidated part 2: it must be sent again before complete.
  expect((await store.listParts("t/in-place.mp3", uploadId)).map((p) => p.partNumber)).toEqual([1, 3]);
  expect((await put(2, data.subarray(1000, 2000), 1000)).status).toBe(200);
  expect((await put(2, data.subarray(1000, 1999), 1000)).status).toBe(400);
  expect((await put(2, data.subarray(1000, 2000), 1000)).status).toBe(200);

  const parts = await store.listParts("t/in-place.mp3", uploadId);
  expect(parts.map((p) => [p.partNumber, p.size])).toEqual([
    [1, 1000],
    [2, 1000],
    [3, 500],
  ]);
  expect(await store.completeMultipartUpload("t/in-place.mp3", uploadId, parts)).toEqual({ size: 2500, contentType: "audio/mpeg" });
  expect(await readAll("t/in-place.mp3")).toEqual(data);
  expect(await readdir(join(root, "~uploads"))).toEqual([]);
});

test("an in-place upload completes only as parts 1..n of the part size; a stale ETag is refused", async () => {
  const { uploadId } = await store.createMultipartUpload("t/gaps.mp3", { contentType: "audio/mpeg", partSize: 100 });
  const write = (n: number, size: number) => store.parts.write("t/gaps.mp3", uploadId, n, new Response(bytes(size, n)).body!, size, true);
  const first = await write(1, 100);
  const third = await write(3, 50);
  await expect(store.completeMultipartUpload("t/gaps.mp3", uploadId, [first, third])).rejects.toBeInstanceOf(InvalidPartError);
  const short = await write(2, 60);
  await expect(store.completeMultipartUpload("t/gaps.mp3", uploadId, [first, short, third])).rejects.toBeInstanceOf(InvalidPartError);
  const second = await write(2, 100);
  await expect(
    store.completeMultipartUpload(
      "t/gaps.mp3",
      uploadId,
      [first, short, third].map((p) => (p.partNumber === 2 ? { ...p, size: 100 } : p)),
    ),
  ).rejects.toBeInstanceOf(InvalidPartError);
  expect(await store.completeMultipartUpload("t/gaps.mp3", uploadId, [first, second, third])).toEqual({ size: 250, contentType: "audio/mpeg" });
});

test("a part being written locks it: a second PUT of it, and complete, are refused meanwhile", async () => {
  const { uploadId } = await store.createMultipartUpload("t/busy.mp3", { contentType: "audio/mpeg", partSize: 100 });
  const done = await store.parts.write("t/busy.mp3", uploadId, 1, new Response(bytes(100)).body!, 100, true);
  let finish!: () => void;
  const slow = new ReadableStream<Uint8Array>({
    async start(c) {
      c.enqueue(new Uint8Array(10));
      await new Promise<void>((resolve) => (finish = resolve));
      c.enqueue(new Uint8Array(20));
      c.close();
    },
  });
  const writing = store.parts.write("t/busy.mp3", uploadId, 2, slow, 30, false);
  await Bun.sleep(50);
  await expect(store.parts.write("t/busy.mp3", uploadId, 2, new Response(bytes(30)).body!, 30, true)).rejects.toBeInstanceOf(PartBusyError);
  await expect(store.completeMultipartUpload("t/busy.mp3", uploadId, [done])).rejects.toBeInstanceOf(PartBusyError);
  finish();
  const second = await writing;
  expect(await store.completeMultipartUpload("t/busy.mp3", uploadId, [done, second])).toEqual({ size: 130, contentType: "audio/mpeg" });
});
