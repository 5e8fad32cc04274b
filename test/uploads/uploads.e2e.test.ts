import { afterAll, beforeAll, expect, test } from "bun:test";
import { startServiceProcess, type RunningService } from "../support/service-process.ts";
import { UploadClient } from "../support/upload-client.ts";
import { bytes, toneFile } from "../support/uploads.ts";
import { manyRequestsPerToken } from "../support/limits.ts";

// The whole upload workflow against the real service process (embedded profile): the client PUTs
// parts with fetch to the URLs sign-part returns, which the API serves itself.
let service: RunningService;
beforeAll(async () => {
  service = await startServiceProcess((url) => ({ PUBLIC_URL: url, ...manyRequestsPerToken }));
});
afterAll(() => service?.stop());

test("sign → PUT parts → complete → GET task → GET audio with Range", async () => {
  const client = await UploadClient.register(service.url);
  const tone = await toneFile("mp3");
  const session = await client.sign("Standup.mp3", "audio/mpeg", tone.byteLength);
  expect(session.part_count).toBe(1);
  const { url } = await client.signPart(session, 1);
  expect(url.startsWith(`${service.url}/storage/`)).toBe(true);

  expect((await client.putPart(session, 1, tone)).status).toBe(200);
  const completed = await client.complete(session, "Standup.mp3", "audio/mpeg", tone.byteLength);
  expect(completed.status).toBe(201);
  const { task } = (await completed.json()) as { task: { id: number; name: string; status: string; path: string } };
  expect(task).toMatchObject({ name: "Standup", status: "pending", path: session.path });

  const detail = await client.json<{ disk: string; size: number; file: string }>("GET", `/api/tasks/${task.id}`);
  expect(detail).toMatchObject({ disk: "objstore", size: tone.byteLength, file: "Standup.mp3" });

  const whole = await client.call("GET", `/api/tasks/${task.id}/audio`);
  expect(whole.status).toBe(200);
  expect(whole.headers.get("content-type")).toBe("audio/mpeg");
  expect(whole.headers.get("content-length")).toBe(String(tone.byteLength));
  expect(new Uint8Array(await whole.arrayBuffer()) as Uint8Array).toEqual(tone);
  const ranged = await client.call("GET", `/api/tasks/${task.id}/audio`, undefined, { range: "bytes=100-199" });
  expect(ranged.status).toBe(206);
  expect(ranged.headers.get("content-range")).toBe(`bytes 100-199/${tone.byteLength}`);
  expect(new Uint8Array(await ranged.arrayBuffer()) as Uint8Array).toEqual(tone.subarray(100, 200));
  expect((await client.call("GET", `/api/tasks/${task.id}/audio`, undefined, { range: `bytes=${tone.byteLength + 10}-` })).status).toBe(416);
});

test("several parts in parallel over real HTTP, then a part PUT with the wrong length is refused", async () => {
  const client = await UploadClient.register(service.url);
  const data = bytes(17 * 1024 * 1024 + 333, 11);
  const session = await client.sign("clip.mp4", "video/mp4", data.byteLength);
  expect(session.part_count).toBe(3);
  await client.putAll(session, new Blob([data]));
  // A second PUT of part 3 with a byte too many or too few: refused, the part already there stays.
  expect((await client.putPart(session, 3, data.subarray(2 * session.part_size, data.byteLength - 1))).status).toBe(400);
  expect((await client.putPart(session, 3, new Uint8Array(data.byteLength - 2 * session.part_size + 1))).status).toBe(400);
  const completed = await client.complete(session, "clip.mp4", "video/mp4", data.byteLength);
  expect(completed.status).toBe(201);
  const { task } = (await completed.json()) as { task: { id: number } };
  const audio = await client.call("GET", `/api/tasks/${task.id}/audio`);
  expect(new Uint8Array(await audio.arrayBuffer()) as Uint8Array).toEqual(data);
});
