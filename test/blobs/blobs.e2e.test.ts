import { afterAll, beforeAll, expect, test } from "bun:test";
import { S3BlobStore } from "../../src/blobs/s3.ts";
import { startS3Server, type S3TestServer } from "../support/s3-server.ts";
import { blobStoreContract, bytes, readAll } from "../contracts/blobs.contract.ts";

// The S3 adapter against a real S3 implementation (Ceph RGW, see support/s3-server.ts), started once
// for the file. If it cannot start, every test here fails loudly with the reason: no silent skip.
let server: Promise<S3TestServer> | undefined;
const started = () => (server ??= startS3Server());

beforeAll(async () => {
  await started();
}, 120_000);
afterAll(async () => {
  await (await server?.catch(() => undefined))?.stop();
}, 30_000);

async function openS3(): Promise<{ store: S3BlobStore; close(): Promise<void> }> {
  const store = new S3BlobStore({ ...(await started()), forcePathStyle: true });
  return { store, close: () => store.close() };
}

blobStoreContract("s3 (Ceph RGW)", openS3);

test("S3 put of a stream larger than one part goes up as a multipart upload", async () => {
  const { store, close } = await openS3();
  try {
    const data = bytes(8 * 1024 * 1024 + 4321, 3);
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < data.byteLength; i += 1_000_000) controller.enqueue(data.subarray(i, i + 1_000_000));
        controller.close();
      },
    });
    expect(await store.put("e2e/stream.bin", chunks, { contentType: "video/mp4" })).toEqual({ size: data.byteLength, contentType: "video/mp4" });
    const read = await store.get("e2e/stream.bin");
    expect(read?.contentType).toBe("video/mp4");
    expect(await readAll(read!.body)).toEqual(data);
    await store.delete("e2e/stream.bin");
  } finally {
    await close();
  }
});

test("with S3_PUBLIC_ENDPOINT, presigned URLs name the public host and work there, while the service uses its own", async () => {
  const server = await started();
  const publicEndpoint = server.endpoint.replace("127.0.0.1", "localhost");
  const store = new S3BlobStore({ ...server, publicEndpoint, forcePathStyle: true });
  try {
    const data = bytes(1000, 5);
    await store.put("e2e/public.bin", data, { contentType: "application/octet-stream" });
    const signed = await store.signGet("e2e/public.bin", { expiresInSeconds: 60 });
    expect(new URL(signed.url).host).toBe(new URL(publicEndpoint).host);
    expect(new Uint8Array(await (await fetch(signed.url)).arrayBuffer())).toEqual(data);

    const { uploadId } = await store.createMultipartUpload("e2e/public-upload.bin", { contentType: "application/octet-stream" });
    const part = await store.signUploadPart("e2e/public-upload.bin", uploadId, 1, { expiresInSeconds: 60, contentLength: data.byteLength });
    expect(new URL(part.url).host).toBe(new URL(publicEndpoint).host);
    expect((await fetch(part.url, { method: "PUT", body: data })).status).toBe(200);
    expect((await store.listParts("e2e/public-upload.bin", uploadId)).map((p) => p.size)).toEqual([1000]);
    await store.abortMultipartUpload("e2e/public-upload.bin", uploadId);
    await store.delete("e2e/public.bin");
  } finally {
    await store.close();
  }
});
