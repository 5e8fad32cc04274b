import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { complete, completeBody, sign, toneFile, uploadParts } from "../support/uploads.ts";
import { deriveKey } from "../../src/billing/checkout-reference.ts";
import { signShareAudioQuery } from "../../src/tasks/audio-url.ts";

let app: TestApp;
let tone: Uint8Array;

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  tone = await toneFile("mp3");
});
afterAll(() => app.close());

type AudioUrl = { url: string; expires_in: number };

/** A task of `user`'s from an upload of the tone, so /audio has bytes to serve. */
async function uploadedTask(user: { token: string; id: number }): Promise<number> {
  const session = await sign(app, user, { file: "call.mp3", content_type: "audio/mpeg", size: tone.byteLength });
  await uploadParts(app, user, session, tone);
  const done = await json<{ task: { id: number } }>(await complete(app, user, completeBody(session, "call.mp3", "audio/mpeg", tone.byteLength)));
  return done.task.id;
}

/** The signed URL as a path on the test app (PUBLIC_URL is not where app.request sends). */
const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

describe("GET /api/tasks/{id}/audio-url: the audio at a signed URL, for media elements", () => {
  test("the URL serves the file without a token, with Range, for hours", async () => {
    const user = await app.register();
    const id = await uploadedTask(user);
    const answer = await app.request("GET", `/api/tasks/${id}/audio-url`, { token: user.token });
    expect(answer.status).toBe(200);
    const { url, expires_in } = await json<AudioUrl>(answer);
    expect(expires_in).toBe(6 * 3600);
    expect(url).toMatch(new RegExp(`/api/tasks/${id}/audio/signed\\?user=${user.id}&expires=\\d+&signature=[\\w-]+$`));

    const whole = await app.request("GET", pathOf(url));
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/mpeg");
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(tone))).toBe(true);
    const part = await app.request("GET", pathOf(url), { headers: { range: "bytes=0-99" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 0-99/${tone.byteLength}`);
    expect((await app.request("GET", pathOf(url), { headers: { range: `bytes=${tone.byteLength}-` } })).status).toBe(416);
  });

  test("a URL altered to name another task or user, or forged, is 403 before any task is read", async () => {
    const owner = await app.register();
    const other = await app.register();
    const mine = await uploadedTask(owner);
    const theirs = await uploadedTask(other);
    const { url } = await json<AudioUrl>(await app.request("GET", `/api/tasks/${mine}/audio-url`, { token: owner.token }));
    const path = pathOf(url);
    for (const altered of [
      path.replace(`/tasks/${mine}/`, `/tasks/${theirs}/`),
      path.replace(`/tasks/${mine}/`, "/tasks/987654321/"),
      path.replace(`user=${owner.id}`, `user=${other.id}`),
      path.replace(/expires=(\d+)/, (_, e) => `expires=${Number(e) + 60}`),
      path.replace(/signature=.*/, "signature=AAAA"),
      path.split("?")[0]!,
    ]) {
      const answer = await app.request("GET", altered);
      expect(answer.status).toBe(403);
      expect(await answer.json()).toEqual({ message: "The audio URL is invalid or has expired." });
    }
  });

  test("no URL for another user's task, a task without stored media, or without a token; a deleted task's URL stops serving", async () => {
    const owner = await app.register();
    const other = await app.register();
    const id = await uploadedTask(owner);
    expect((await app.request("GET", `/api/tasks/${id}/audio-url`, { token: other.token })).status).toBe(404);
    expect((await app.request("GET", `/api/tasks/${id}/audio-url`)).status).toBe(401);
    const remote = await createTask(app, owner, { disk: "remote", name: "r", path: "https://example.com/a.mp3" });
    expect((await app.request("GET", `/api/tasks/${remote}/audio-url`, { token: owner.token })).status).toBe(404);

    const { url } = await json<AudioUrl>(await app.request("GET", `/api/tasks/${id}/audio-url`, { token: owner.token }));
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: owner.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await app.request("GET", pathOf(url))).status).toBe(404);
  });
});

type Shared = { audio_url: string | null };
const shareJson = (id: number) => app.request("GET", `/share/tasks/${id}`, { headers: { accept: "application/json" } });
const share = (user: { token: string }, id: number, method: "GET" | "DELETE" = "GET") =>
  app.request(method, `/api/tasks/${id}/share-url`, { token: user.token });

describe("the share page's audio_url: the shared task's audio, while it is shared", () => {
  test("present while shared: it serves the file without a token, with Range, and names no user", async () => {
    const owner = await app.register();
    const id = await uploadedTask(owner);
    expect((await shareJson(id)).status).toBe(404);
    expect((await share(owner, id)).status).toBe(200);
    const answer = await shareJson(id);
    expect(answer.status).toBe(200);
    const { audio_url } = await json<Shared>(answer);
    expect(audio_url).toMatch(new RegExp(`^http://localhost:3000/share/tasks/${id}/audio\\?expires=\\d+&signature=[\\w-]+$`));
    const expires = Number(new URL(audio_url!).searchParams.get("expires"));
    expect(Math.abs(expires - (Date.now() / 1000 + 6 * 3600))).toBeLessThan(60);

    const whole = await app.request("GET", pathOf(audio_url!));
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("audio/mpeg");
    expect(whole.headers.get("cache-control")).toBe("private, no-store");
    expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(tone))).toBe(true);
    const part = await app.request("GET", pathOf(audio_url!), { headers: { range: "bytes=10-109" } });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 10-109/${tone.byteLength}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(tone.subarray(10, 110)))).toBe(true);
    expect((await app.request("GET", pathOf(audio_url!), { headers: { range: `bytes=${tone.byteLength}-` } })).status).toBe(416);
  });

  test("a tampered, transplanted or expired URL is 403 before any task is read", async () => {
    const owner = await app.register();
    const other = await app.register();
    const id = await uploadedTask(owner);
    const theirs = await uploadedTask(other);
    expect((await share(owner, id)).status).toBe(200);
    expect((await share(other, theirs)).status).toBe(200);
    const path = pathOf((await json<Shared>(await shareJson(id))).audio_url!);
    const query = path.split("?")[1]!;
    const ownerQuery = new URL((await json<AudioUrl>(await app.request("GET", `/api/tasks/${id}/audio-url`, { token: owner.token }))).url).search;
    const key = deriveKey(app.adapters.secret, "audio-url");
    for (const refused of [
      path.replace(`/tasks/${id}/`, `/tasks/${theirs}/`), // another shared task
      path.replace(`/tasks/${id}/`, "/tasks/987654321/"),
      path.replace(/expires=(\d+)/, (_, e) => `expires=${Number(e) + 60}`),
      path.replace(/signature=.*/, "signature=AAAA"),
      path.split("?")[0]!,
      `/share/tasks/${id}/audio${ownerQuery}`, // the owner's URL is not a share URL…
      `/share/tasks/${id}/audio?${signShareAudioQuery(key, id, Date.now() - (6 * 3600 + 60) * 1000)}`, // expired a minute ago
    ]) {
      const answer = await app.request("GET", refused);
      expect(answer.status).toBe(403);
      expect(await answer.json()).toEqual({ message: "The audio URL is invalid or has expired." });
    }
    // …nor the other way round.
    expect((await app.request("GET", `/api/tasks/${id}/audio/signed?${query}&user=${owner.id}`)).status).toBe(403);
  });

  test("after unsharing no URL is given and an issued one stops at once; sharing again gives one that works", async () => {
    const owner = await app.register();
    const id = await uploadedTask(owner);
    expect((await share(owner, id)).status).toBe(200);
    const issued = pathOf((await json<Shared>(await shareJson(id))).audio_url!);
    expect((await app.request("GET", issued, { headers: { range: "bytes=0-9" } })).status).toBe(206);

    expect((await share(owner, id, "DELETE")).status).toBe(200);
    expect((await shareJson(id)).status).toBe(404);
    const refused = await app.request("GET", issued);
    expect(refused.status).toBe(404);
    expect(await refused.json()).toEqual({ message: "This transcript is not shared." });

    expect((await share(owner, id)).status).toBe(200);
    const again = pathOf((await json<Shared>(await shareJson(id))).audio_url!);
    expect((await app.request("GET", again, { headers: { range: "bytes=0-9" } })).status).toBe(206);
    // Deleting the task ends it too.
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: owner.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await app.request("GET", again)).status).toBe(404);
  });

  test("null for a shared task with no stored media (remote, or a file that is not there)", async () => {
    const owner = await app.register();
    const remote = await createTask(app, owner, { disk: "remote", name: "r", path: "https://example.com/a.mp3" });
    const absent = await createTask(app, owner, { name: "absent", path: `uploads/${owner.id}/nothing-here.mp3` });
    for (const id of [remote, absent]) {
      expect((await share(owner, id)).status).toBe(200);
      const answer = await shareJson(id);
      expect(answer.status).toBe(200);
      expect((await json<Shared>(answer)).audio_url).toBeNull();
    }
  });
});
