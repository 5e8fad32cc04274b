import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { startS3Server, type S3TestServer } from "../support/s3-server.ts";
import { UploadClient } from "../support/upload-client.ts";
import { bytes } from "../support/uploads.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

// The upload workflow with the S3 adapter: parts go straight to a real S3 (Ceph RGW, see
// support/s3-server.ts) through presigned URLs, and the API assembles and streams the object.
let s3: S3TestServer;
let service: RunningService;
beforeAll(async () => {
  s3 = await startS3Server();
  service = await startServiceProcess((url) => ({
    PUBLIC_URL: url,
    ...manyRequestsPerToken,
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: s3.bucket,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    S3_REGION: s3.region,
  }));
}, 120_000);
afterAll(async () => {
  await service?.stop();
  await s3?.stop();
}, 30_000);

test("sign → presigned PUTs to S3 → complete → GET audio from S3, with Range", async () => {
  const client = await UploadClient.register(service.url);
  const data = bytes(8 * 1024 * 1024 + 4567, 21);
  const session = await client.sign("Interview.webm", "video/webm", data.byteLength);
  expect(session.part_count).toBe(2);
  const { url } = await client.signPart(session, 1);
  expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/`)).toBe(true);

  // The length is part of the signature: S3 itself refuses a part of another size.
  expect((await client.putPart(session, 2, data.subarray(session.part_size, data.byteLength - 1))).status).toBe(403);
  const early = await client.complete(session, "Interview.webm", "video/webm", data.byteLength);
  expect(early.status).toBe(422);

  await client.putAll(session, new Blob([data]), 2);
  const completed = await client.complete(session, "Interview.webm", "video/webm", data.byteLength);
  expect(completed.status).toBe(201);
  const { task } = (await completed.json()) as { task: { id: number; path: string } };
  const again = await client.complete(session, "Interview.webm", "video/webm", data.byteLength);
  expect(((await again.json()) as { task: { id: number } }).task.id).toBe(task.id);

  const whole = await client.call("GET", `/api/tasks/${task.id}/audio`);
  expect(whole.status).toBe(200);
  expect(whole.headers.get("content-type")).toBe("video/webm");
  expect(new Uint8Array(await whole.arrayBuffer()) as Uint8Array).toEqual(data);
  const ranged = await client.call("GET", `/api/tasks/${task.id}/audio`, undefined, { range: "bytes=8388600-8388610" });
  expect(ranged.status).toBe(206);
  expect(ranged.headers.get("content-range")).toBe(`bytes 8388600-8388610/${data.byteLength}`);
  expect(new Uint8Array(await ranged.arrayBuffer()) as Uint8Array).toEqual(data.subarray(8388600, 8388611));

  // Abort on S3 discards the parts: the presigned URL is refused afterwards.
  const other = await client.sign("b.mp3", "audio/mpeg", 1000);
  const part = await client.signPart(other, 1);
  expect((await client.call("POST", "/api/uploads/abort", { path: other.path, upload_id: other.upload_id })).status).toBe(200);
  expect((await fetch(part.url, { method: "PUT", headers: part.headers, body: bytes(1000) })).status).toBe(404);
}, 60_000);
