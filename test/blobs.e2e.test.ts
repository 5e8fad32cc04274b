import { afterAll, beforeAll, expect, test } from "bun:test";
import { S3BlobStore } from "../src/blobs/s3.ts";
import { startS3Server, type S3TestServer } from "./support/s3-server.ts";
import { blobStoreContract, bytes, readAll } from "./contracts/blobs.contract.ts";

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
