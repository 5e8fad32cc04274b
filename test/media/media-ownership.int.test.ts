import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, waitForStatus } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { workersCaughtUp } from "../support/eventually.ts";
import { joinedMp3, spoken } from "../support/media-fixtures.ts";
import { ownsMediaKey } from "../../src/media/ownership.ts";
import { mediaKey } from "../../src/media/fetch-media.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

describe("a task reads only its own user's media", () => {
  test("naming another account's upload key gets nothing: the task fails as for a missing file, and /audio is 404", async () => {
    const owner = await app.register();
    const intruder = await app.register();
    const key = `uploads/${owner.id}/${crypto.randomUUID().replaceAll("-", "")}/private.mp3`;
    await app.adapters.blobs.put(key, (await joinedMp3([await spoken("This is a private recording.")], 0.5)).bytes, { contentType: "audio/mpeg" });

    const stolen = await createTask(app, intruder, { name: "Not mine", path: key });
    const failed = await waitForStatus(app, intruder, stolen, "failed", 20_000);
    expect(failed.failure_reason).toBe("media not found in storage");
    expect(failed.segments).toBeNull();
    expect((await app.request("GET", `/api/tasks/${stolen}/audio`, { token: intruder.token })).status).toBe(404);

    const own = await createTask(app, owner, { name: "Mine", path: key });
    expect(((await waitForStatus(app, owner, own, "finished", 30_000)).segments as unknown[]).length).toBeGreaterThan(0);
    expect((await app.request("GET", `/api/tasks/${own}/audio`, { token: owner.token })).status).toBe(200);

    // Its cost is what was charged: a client cannot rewrite it, and a refused field changes nothing else.
    const cost = (await (await app.request("GET", `/api/tasks/${own}`, { token: owner.token })).json()) as { cost: number; name: string };
    const patched = await app.request("PATCH", `/api/tasks/${own}`, { token: owner.token, json: { name: "Renamed", cost: 0 } });
    expect(patched.status).toBe(422);
    expect(((await patched.json()) as { errors: Record<string, string[]> }).errors.cost).toEqual([
      "The cost of a transcribed task is the time it was charged and cannot be changed.",
    ]);
    expect(await (await app.request("GET", `/api/tasks/${own}`, { token: owner.token })).json()).toMatchObject({ cost: cost.cost, name: "Mine" });

    // Deleting the intruder's task leaves the owner's file alone; deleting the owner's task deletes it.
    expect((await app.request("DELETE", `/api/tasks/${stolen}`, { token: intruder.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    // The task-media worker deletes a task's files after the fact: once it has handled the deletion, the file stays.
    await workersCaughtUp(app);
    expect(await app.adapters.blobs.head(key)).not.toBeNull();
    expect((await app.request("DELETE", `/api/tasks/${own}`, { token: owner.token })).status).toBe(200);
    const gone = Date.now() + 3000;
    while ((await app.adapters.blobs.head(key)) !== null && Date.now() < gone) await Bun.sleep(20);
    expect(await app.adapters.blobs.head(key)).toBeNull();
    await expectNoOrphanBlobs(app);
  }, 60_000);

  test("ownership is the key's prefix; fetched media keys carry 128 random bits", () => {
    expect(ownsMediaKey(7, "uploads/7/abc/a.mp3")).toBe(true);
    expect(ownsMediaKey(7, "media/7/12-abc/a.mp3")).toBe(true);
    expect(ownsMediaKey(7, "uploads/70/abc/a.mp3")).toBe(false);
    expect(ownsMediaKey(7, "uploads/a.mp3")).toBe(false);
    expect(ownsMediaKey(7, "exports/7/x.pdf")).toBe(false);
    // A key that climbs out of the user's prefix is not theirs.
    expect(ownsMediaKey(7, "uploads/7/../8/abc/a.mp3")).toBe(false);
    expect(ownsMediaKey(7, "media/7/./../8/x.mp3")).toBe(false);
    const key = mediaKey(7, 12, "talk.mp3");
    expect(key).toMatch(/^media\/7\/12-[0-9a-f]{32}\/talk\.mp3$/);
    expect(mediaKey(7, 12, "talk.mp3")).not.toBe(key);
  });
});
