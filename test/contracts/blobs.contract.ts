/**
 * The blob store contract (src/blobs/port.ts): every adapter must pass it. Keys carry a random run
 * prefix, so the suite can run against a shared bucket.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { NoSuchUploadError, type BlobStore, type SignedRequest } from "../../src/blobs/port.ts";

export type OpenBlobStore = () => Promise<{ store: BlobStore; close(): Promise<void> }>;

/** S3 refuses parts under 5 MiB except the last; the contract holds every adapter to that shape. */
const MIN_PART = 5 * 1024 * 1024;

export function bytes(length: number, seed = 0): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = (i * 31 + seed * 7 + (i >> 8)) & 0xff;
  return out;
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

function send(signed: SignedRequest, body?: Uint8Array): Promise<Response> {
  return fetch(signed.url, { method: signed.method, headers: signed.headers, ...(body ? { body } : {}) });
}

export function blobStoreContract(adapterName: string, open: OpenBlobStore): void {
  describe(`BlobStore contract: ${adapterName}`, () => {
    let opened: Awaited<ReturnType<OpenBlobStore>> | undefined;
    const store = (): BlobStore => {
      if (!opened) throw new Error("store not opened");
      return opened.store;
    };
    const run = Math.random().toString(36).slice(2, 10);
    let count = 0;
    const freshKey = (name = "file.bin") => `contract-${run}/${++count}/${name}`;

    // Opening may start a server (Ceph RGW takes 10-20 s); hooks do not get bunfig's test timeout.
    beforeAll(async () => {
      opened = await open();
    }, 120_000);
    afterAll(async () => {
      await opened?.close();
    });

    test("put, head, get and delete round-trip", async () => {
      const key = freshKey("audio.mp3");
      const data = bytes(10_000);
      expect(await store().put(key, data, { contentType: "audio/mpeg" })).toEqual({ size: 10_000, contentType: "audio/mpeg" });
      expect(await store().head(key)).toEqual({ size: 10_000, contentType: "audio/mpeg" });
      const read = await store().get(key);
      expect(read?.size).toBe(10_000);
      expect(read?.contentType).toBe("audio/mpeg");
      expect(read?.range).toBeUndefined();
      expect(await readAll(read!.body)).toEqual(data);
      await store().delete(key);
      expect(await store().head(key)).toBeNull();
      expect(await store().get(key)).toBeNull();
    });

    test("put accepts a stream and a Blob, and replaces an existing object", async () => {
      const key = freshKey();
      const a = bytes(3000, 1);
      const b = bytes(5000, 2);
      expect((await store().put(key, streamOf(a.subarray(0, 1000), a.subarray(1000)), { contentType: "text/plain" })).size).toBe(3000);
      expect(await readAll((await store().get(key))!.body)).toEqual(a);
      expect(await store().put(key, new Blob([b]), { contentType: "application/pdf" })).toEqual({ size: 5000, contentType: "application/pdf" });
      expect(await store().head(key)).toEqual({ size: 5000, contentType: "application/pdf" });
      expect(await readAll((await store().get(key))!.body)).toEqual(b);
    });

    test("range reads are inclusive, clamped to the object, and null past its end", async () => {
      const key = freshKey();
      const data = bytes(1000);
      await store().put(key, data, { contentType: "application/octet-stream" });
      const middle = await store().get(key, { range: { start: 10, end: 19 } });
      expect(middle?.range).toEqual({ start: 10, end: 19 });
      expect(middle?.size).toBe(1000);
      expect(await readAll(middle!.body)).toEqual(data.subarray(10, 20));
      const tail = await store().get(key, { range: { start: 990, end: 5000 } });
      expect(tail?.range).toEqual({ start: 990, end: 999 });
      expect(await readAll(tail!.body)).toEqual(data.subarray(990));
      expect(await store().get(key, { range: { start: 1000, end: 1010 } })).toBeNull();
    });

    test("missing objects read as null and delete quietly", async () => {
      const key = freshKey();
      expect(await store().get(key)).toBeNull();
      expect(await store().get(key, { range: { start: 0, end: 10 } })).toBeNull();
      expect(await store().head(key)).toBeNull();
      await store().delete(key);
    });

    test("signGet gives a URL anyone can fetch, with the download name", async () => {
      const key = freshKey("export.txt");
      const data = bytes(2048);
      await store().put(key, data, { contentType: "text/plain" });
      const signed = await store().signGet(key, { expiresInSeconds: 60, downloadName: "Réunion 1.txt" });
      expect(signed.method).toBe("GET");
      const response = await send(signed);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("text/plain");
      expect(response.headers.get("content-disposition")).toContain("filename*=UTF-8''R%C3%A9union%201.txt");
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(data);
      const plain = await send(await store().signGet(key, { expiresInSeconds: 60 }));
      expect(plain.status).toBe(200);
      expect(plain.headers.get("content-disposition")).toBeNull();
      await plain.arrayBuffer();
    });

    test("a signed GET stops working once expired", async () => {
      const key = freshKey();
      await store().put(key, bytes(10), { contentType: "text/plain" });
      const signed = await store().signGet(key, { expiresInSeconds: 1 });
      // Expiry counts whole seconds from the signing second, so wait past two.
      await Bun.sleep(2500);
      const response = await send(signed);
      expect(response.status).toBe(403);
      await response.arrayBuffer();
    });

    test("multipart upload through signed part URLs joins parts in order", async () => {
      const key = freshKey("upload.wav");
      const { uploadId } = await store().createMultipartUpload(key, { contentType: "audio/wav" });
      const first = bytes(MIN_PART, 1);
      const second = bytes(1234, 2);
      // Part 2 first: the order parts arrive in must not matter.
      for (const [partNumber, body] of [
        [2, second],
        [1, first],
      ] as const) {
        const signed = await store().signUploadPart(key, uploadId, partNumber, { expiresInSeconds: 60 });
        expect(signed.method).toBe("PUT");
        const response = await send(signed, body);
        expect(response.status).toBe(200);
        await response.arrayBuffer();
      }
      const parts = await store().listParts(key, uploadId);
      expect(parts.map((p) => [p.partNumber, p.size])).toEqual([
        [1, MIN_PART],
        [2, 1234],
      ]);
      for (const part of parts) expect(part.etag.length).toBeGreaterThan(0);

      expect(await store().completeMultipartUpload(key, uploadId, parts)).toEqual({ size: MIN_PART + 1234, contentType: "audio/wav" });
      const read = await store().get(key);
      const all = await readAll(read!.body);
      expect(all.byteLength).toBe(MIN_PART + 1234);
      expect(all.subarray(0, MIN_PART)).toEqual(first);
      expect(all.subarray(MIN_PART)).toEqual(second);
      expect(read?.contentType).toBe("audio/wav");
      await expect(store().listParts(key, uploadId)).rejects.toBeInstanceOf(NoSuchUploadError);
    });

    test("a re-sent part replaces the earlier one", async () => {
      const key = freshKey();
      const { uploadId } = await store().createMultipartUpload(key, { contentType: "audio/ogg" });
      const signed = await store().signUploadPart(key, uploadId, 1, { expiresInSeconds: 60 });
      await (await send(signed, bytes(100, 1))).arrayBuffer();
      await (await send(signed, bytes(200, 2))).arrayBuffer();
      const parts = await store().listParts(key, uploadId);
      expect(parts.map((p) => [p.partNumber, p.size])).toEqual([[1, 200]]);
      await store().completeMultipartUpload(key, uploadId, parts);
      expect(await readAll((await store().get(key))!.body)).toEqual(bytes(200, 2));
    });

    test("abort discards the upload; unknown uploads are NoSuchUploadError", async () => {
      const key = freshKey();
      const { uploadId } = await store().createMultipartUpload(key, { contentType: "audio/mpeg" });
      await (await send(await store().signUploadPart(key, uploadId, 1, { expiresInSeconds: 60 }), bytes(100))).arrayBuffer();
      expect(await store().listParts(key, uploadId)).toHaveLength(1);
      await store().abortMultipartUpload(key, uploadId);
      await expect(store().listParts(key, uploadId)).rejects.toBeInstanceOf(NoSuchUploadError);
      await expect(store().completeMultipartUpload(key, uploadId, [{ partNumber: 1, size: 100, etag: '"x"' }])).rejects.toBeInstanceOf(NoSuchUploadError);
      await store().abortMultipartUpload(key, uploadId);
      expect(await store().head(key)).toBeNull();
    });

    test("an upload is bound to its key", async () => {
      const key = freshKey();
      const { uploadId } = await store().createMultipartUpload(key, { contentType: "audio/mpeg" });
      await expect(store().listParts(freshKey(), uploadId)).rejects.toBeInstanceOf(NoSuchUploadError);
      await store().abortMultipartUpload(key, uploadId);
    });
  });
}
