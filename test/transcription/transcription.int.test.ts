import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, json, taskCommand, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { badMedia, joinedClips, joinedMp3, librispeech, librispeechDir, spoken } from "../support/media-fixtures.ts";
import { readSse } from "../support/sse.ts";
import { until } from "../support/eventually.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { chargeSeconds } from "../support/charges.ts";
import { userStream } from "../../src/accounts/events.ts";
import { wordErrorRate } from "../../src/transcription/wer.ts";
import { pipelineObservers, type PipelineTimings } from "../../src/transcription/timings.ts";
import { failStuckTasks } from "../../src/transcription/stuck-tasks-job.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, CHUNK_SECONDS: "10" });
});
afterAll(async () => {
  await app?.close();
});

/** Stores media under the user's own upload prefix, as an upload would (a task reads only its user's media). */
async function upload(user: User, bytes: Uint8Array, contentType = "application/octet-stream"): Promise<string> {
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/media`;
  await app.adapters.blobs.put(key, bytes, { contentType });
  return key;
}

const history = async (user: User, id: number) =>
  json<{ type: string; data: Json }[]>(await app.request("GET", `/api/tasks/${id}/history`, { token: user.token }));
const userView = async (user: User) => json<{ balance: Json; queue: Json }>(await app.request("GET", "/api/user", { token: user.token }));
const notifications = async (user: User) => json<{ title: string; message: string }[]>(await app.request("GET", "/api/notifications", { token: user.token }));
async function charges(userId: number) {
  return (await app.adapters.eventStore.readStream(userStream(userId)))
    .filter((e) => e.type === "SecondsCharged")
    .map((e) => e.data as { taskId: number; seconds: number });
}
async function spend(userId: number, seconds: number) {
  const position = await chargeSeconds(app.adapters.eventStore, userId, seconds);
  if (position !== null) await app.service.waitForProjections(position);
}

/** The LibriSpeech clips these tests recognise, from ../shared/testdata (checked once, here, so that a missing one skips rather than passes). */
const clipsAt = (...ids: string[]) => [...ids.map((id) => `${id}.flac`), "transcripts.txt"].every((name) => existsSync(join(librispeechDir, name)));
const howToGetClips = `put the LibriSpeech clips and transcripts.txt under ${librispeechDir} (../shared/testdata)`;
const hasShortClip = prerequisite("LibriSpeech clip 1089-134691-0001", clipsAt("1089-134691-0001"), howToGetClips);
const longRecording = ["1089-134691-0000", "1089-134686-0001", "1089-134691-0001", "1089-134691-0000", "1089-134686-0001", "1089-134691-0001"];
const hasLongRecording = prerequisite("LibriSpeech clips 1089-134691-0000, 1089-134686-0001, 1089-134691-0001", clipsAt(...longRecording), howToGetClips);

describe("an uploaded recording", () => {
  test.skipIf(!hasShortClip)(
    "goes pending → scribing → finished with timed segments, duration, cost, quality, summary and mind map, charged once",
    async () => {
      const clip = librispeech("1089-134691-0001")!;
      const user = await app.register();
      const id = await createTask(app, user, { path: await upload(user, clip.bytes, "audio/flac"), name: "Waiting" });
      const stream = readSse(await app.request("GET", `/api/tasks/${id}/events`, { token: user.token }));
      const task = await waitForStatus(app, user, id, "finished", 30_000);

      const segments = task.segments as { id: number; start: number; end: number; text: string; speaker: string | null; tokens: string[] }[];
      expect(segments.length).toBeGreaterThan(0);
      for (const [i, s] of segments.entries()) {
        expect(s.id).toBe(i + 1);
        expect(Number.isInteger(s.start) && Number.isInteger(s.end) && s.end >= s.start && s.end <= 5500).toBe(true);
        expect(s.tokens.length).toBeGreaterThan(0);
        expect(s.speaker).toBeNull();
      }
      const text = segments.map((s) => s.text).join(" ");
      expect(wordErrorRate(clip.reference, text).wer).toBeLessThan(0.3);
      expect(text.charAt(0)).toBe(text.charAt(0).toUpperCase());
      expect(task).toMatchObject({ duration: 6, cost: 6, failure_reason: null });
      expect(task.quality as number).toBeGreaterThanOrEqual(0);
      expect(task.quality as number).toBeLessThanOrEqual(5);
      expect((task.summary as string).length).toBeGreaterThan(10);
      expect(task.mindmap as string).toStartWith("# Waiting\n");
      expect(task.mindmap as string).toContain("\n## ");

      const types = (await history(user, id)).map((e) => e.type);
      expect(types.filter((t) => t === "TranscriptionStarted").length).toBe(1);
      expect(types.filter((t) => t === "TaskFinished").length).toBe(1);
      expect(types.indexOf("TranscriptionStarted")).toBeLessThan(types.indexOf("TaskFinished"));
      // The charge follows TaskFinished through the bus.
      await until("the charge for the finished task", async () => (await charges(user.id)).length > 0, 10_000);
      expect(await charges(user.id)).toEqual([expect.objectContaining({ taskId: id, seconds: 6 })]);
      // The balance is a read model: it follows the charge once the projections have handled it.
      const balance = await until(
        "the balance to show the charge",
        async () => {
          const { balance } = await userView(user);
          return balance.used_seconds !== 0 && balance;
        },
        10_000,
      );
      expect(balance).toMatchObject({ used_seconds: 6, remaining_seconds: 1794 });
      expect((await notifications(user)).map((n) => n.title)).toContain("Task finished");

      const { events, ended } = await stream;
      expect(ended).toBe(true);
      const statuses = events.filter((e) => e.event === "status").map((e) => JSON.parse(e.data) as Json);
      expect(statuses[statuses.length - 1]).toEqual({ status: "finished", attempts: 1, failure_reason: null, stage: null, progress: null });
      expect(statuses.map((s) => s.status)).toContain("scribing");
    },
    60_000,
  );

  test.skipIf(!hasLongRecording)(
    "a long recording is cut at pauses into chunks recognised in parallel and stitched back in time",
    async () => {
      const media = (await joinedClips(longRecording, 1.5))!;
      const user = await app.register();
      let timings: PipelineTimings | null = null;
      const observer = (t: PipelineTimings) => void (timings = t);
      pipelineObservers.add(observer);
      const id = await createTask(app, user, { path: await upload(user, media.bytes, "audio/flac") });
      const task = await waitForStatus(app, user, id, "finished", 60_000);
      pipelineObservers.delete(observer);
      expect(timings!.chunks).toBeGreaterThanOrEqual(3);
      const segments = task.segments as { start: number; end: number; text: string }[];
      for (let i = 1; i < segments.length; i++) expect(segments[i]!.start).toBeGreaterThanOrEqual(segments[i - 1]!.end);
      expect(segments[segments.length - 1]!.end).toBeLessThanOrEqual(media.seconds * 1000);
      // The second "stuff it into ..." (the fifth clip) comes after three more clips and their pauses.
      const repeats = segments.filter((s) => /^stuff it into/i.test(s.text));
      expect(repeats.length).toBe(2);
      expect(repeats[1]!.start).toBeGreaterThan(repeats[0]!.start + 12_000);
      expect(wordErrorRate(media.reference, segments.map((s) => s.text).join(" ")).wer).toBeLessThan(0.35);
      expect(task.duration).toBe(Math.ceil(media.seconds));
    },
    90_000,
  );

  test("with speaker_diarization, two voices are told apart", async () => {
    const lines = [
      ["Good morning, thank you all for coming to the planning meeting today.", "en-us"],
      ["Thanks for having me, I brought the numbers from the last quarter.", "en-us+f3"],
      ["Great, let us start with the sales figures and then move on.", "en-us"],
      ["Sales went up by twelve percent, mostly in the northern region.", "en-us+f3"],
    ] as const;
    const media = await joinedMp3(await Promise.all(lines.map(([text, voice]) => spoken(text, voice))), 1.2);
    const user = await app.register();
    const id = await createTask(app, user, { path: await upload(user, media.bytes, "audio/mpeg"), speaker_diarization: true });
    const task = await waitForStatus(app, user, id, "finished", 60_000);
    const segments = task.segments as { start: number; end: number; speaker: string }[];
    const voiceAt = (s: { start: number; end: number }) =>
      media.parts.findIndex((p) => (s.start + s.end) / 2 >= p.start - 300 && (s.start + s.end) / 2 <= p.end + 300) % 2;
    const expected = segments.map((s) => `Speaker ${voiceAt(s) + 1}`);
    expect(segments.map((s) => s.speaker)).toEqual(expected);
    expect(new Set(expected).size).toBe(2);
  }, 60_000);
});

describe("bad input ends failed with a readable reason, counted and notified", () => {
  const cases: [string, () => Promise<Uint8Array> | Uint8Array, RegExp][] = [
    ["a zero-length file", badMedia.empty, /^The file is empty/],
    ["a file that is not media", badMedia.text, /not audio or video/],
    ["a picture", badMedia.image, /picture, not audio or video/],
    ["a video without an audio track", badMedia.videoWithoutAudio, /no audio track/],
    ["an hour of silence", () => badMedia.silence(3600), /silent/],
    ["a damaged file", badMedia.corrupt, /damaged/],
  ];
  for (const [name, make, reason] of cases) {
    test(name, async () => {
      const user = await app.register();
      const id = await createTask(app, user, { path: await upload(user, await make()) });
      const task = await waitForStatus(app, user, id, "failed", 30_000);
      expect(task.failure_reason as string).toMatch(reason);
      expect(task.segments).toBeNull();
      expect((await userView(user)).queue).toMatchObject({ failed_count: 1, pending_count: 0, running_count: 0 });
      await Bun.sleep(50);
      const notes = await notifications(user);
      expect(notes.map((n) => n.title)).toContain("Task failed");
      expect(notes.find((n) => n.title === "Task failed")!.message).toContain(task.failure_reason as string);
      expect(await charges(user.id)).toEqual([]);
    }, 40_000);
  }

  test("a 2 GB file that is not media fails as such; a file above 2 GB is refused for its size", async () => {
    const user = await app.register();
    const blobsRoot = join(app.config.dataDir, "blobs");
    const big = async (size: number) => {
      const key = await upload(user, new TextEncoder().encode("not a media file"));
      truncateSync(join(blobsRoot, key), size); // sparse: no 2 GB written to make it
      return key;
    };
    const atLimit = await createTask(app, user, { path: await big(2_147_483_648) });
    const overLimit = await createTask(app, user, { path: await big(2_147_483_649) });
    expect((await waitForStatus(app, user, overLimit, "failed", 10_000)).failure_reason).toBe(
      "The file is 2.0 GiB; files above 2 GB (2,147,483,648 bytes) are not transcribed.",
    );
    expect((await waitForStatus(app, user, atLimit, "failed", 60_000)).failure_reason as string).toMatch(/not audio or video/);
  }, 90_000);

  test("a manually created task whose path is not in storage; once the object is there a retry finishes it", async () => {
    const user = await app.register();
    const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/late.mp3`;
    const id = await createTask(app, user, { path });
    expect((await waitForStatus(app, user, id, "failed", 10_000)).failure_reason).toBe("media not found in storage");
    const media = await joinedMp3([await spoken("Here is the recording you asked for.")], 0.5);
    await app.adapters.blobs.put(path, media.bytes, { contentType: "audio/mpeg" });
    const retried = await app.request("PATCH", `/api/tasks/${id}/retry`, { token: user.token });
    expect(await retried.json()).toEqual({ id, status: "pending", attempts: 2 });
    const task = await waitForStatus(app, user, id, "finished", 30_000);
    expect(task).toMatchObject({ attempts: 2, failure_reason: null });
    expect((task.segments as unknown[]).length).toBeGreaterThan(0);
  }, 40_000);
});

describe("balance", () => {
  test("no time left: creation is refused with 403; a transcript supplied with the task is still accepted", async () => {
    const user = await app.register();
    await spend(user.id, 1800);
    const refused = await app.request("POST", "/api/tasks", { token: user.token, json: { disk: "objstore", name: "x", path: "uploads/x.mp3" } });
    expect(refused.status).toBe(403);
    expect((await json<{ message: string }>(refused)).message).toMatch(/no transcription time left/);
    await createTask(app, user, { segments: [{ start: 0, end: 1000, text: "Supplied." }] });
  });

  test("a duration given above the balance is refused; media longer than the balance fails saying so", async () => {
    const user = await app.register();
    await spend(user.id, 1797);
    const refused = await app.request("POST", "/api/tasks", { token: user.token, json: { disk: "objstore", name: "x", path: "uploads/x.mp3", duration: 10 } });
    expect(refused.status).toBe(403);
    const media = await joinedMp3([await spoken("This recording is longer than the three seconds left on the balance of this account.")], 0.5);
    const id = await createTask(app, user, { path: await upload(user, media.bytes) });
    const task = await waitForStatus(app, user, id, "failed", 30_000);
    expect(task.failure_reason as string).toMatch(/^Not enough transcription time: the media is \d+ s long and the balance has 3 s left/);
    expect(await charges(user.id)).toHaveLength(1); // only the spending above
  }, 40_000);
});

describe("transcripts supplied at creation", () => {
  test("go straight to summary and mind map, are not charged, and refresh-summary makes both again from the edited transcript", async () => {
    const user = await app.register();
    const segments = [
      { start: 0, end: 4000, text: "The garden needs water every morning in summer." },
      { start: 4000, end: 8000, text: "Tomatoes in the garden want more water than herbs." },
      { start: 8000, end: 12000, text: "Next week we plant the garden beans." },
    ];
    const id = await createTask(app, user, { name: "Garden", segments });
    const task = await waitForStatus(app, user, id, "finished", 5000);
    expect(task.summary as string).toContain("garden");
    expect(task.mindmap as string).toStartWith("# Garden");
    expect(task.segments).toHaveLength(3);
    expect((await history(user, id)).map((e) => e.type)).not.toContain("TranscriptionStarted");
    await Bun.sleep(100);
    expect(await charges(user.id)).toEqual([]);

    const edited = await app.request("PATCH", `/api/tasks/${id}`, {
      token: user.token,
      json: { text: "Bees visit the orchard.\nThe orchard bees make honey.\nHoney from the orchard sells well." },
    });
    expect(edited.status).toBe(200);
    const refreshed = await app.request("GET", `/api/tasks/${id}/refresh-summary`, { token: user.token });
    expect(refreshed.status).toBe(200);
    const body = await json<{ summary: string; mindmap: string }>(refreshed);
    expect(body.summary).toContain("orchard");
    expect(body.summary).not.toContain("garden");
    expect(body.mindmap).toStartWith("# Garden\n");
    expect(body.mindmap.toLowerCase()).toContain("orchard");
    const after = await getTask(app, user, id);
    expect({ summary: after.summary, mindmap: after.mindmap }).toEqual(body);
    expect((await history(user, id)).map((e) => e.type)).toContain("SummaryRefreshed");
  });

  test("refresh-summary: 422 without a transcript, 404 for another user's task", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { path: `uploads/${crypto.randomUUID()}` });
    await waitForStatus(app, user, id, "failed", 10_000);
    expect((await app.request("GET", `/api/tasks/${id}/refresh-summary`, { token: user.token })).status).toBe(422);
    const other = await app.register();
    expect((await app.request("GET", `/api/tasks/${id}/refresh-summary`, { token: other.token })).status).toBe(404);
    expect((await app.request("GET", `/api/tasks/${id}/events`, { token: other.token })).status).toBe(404);
    expect((await app.request("GET", `/api/tasks/${id}/events`)).status).toBe(401);
  });
});

describe("live status", () => {
  test("the events stream of an ended task says so and ends at once", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { segments: [{ start: 0, end: 1000, text: "Done." }] });
    await waitForStatus(app, user, id, "finished", 5000);
    const response = await app.request("GET", `/api/tasks/${id}/events`, { token: user.token });
    expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    const { events, ended } = await readSse(response, 5000);
    expect(ended).toBe(true);
    expect(events).toEqual([{ event: "status", data: JSON.stringify({ status: "finished", attempts: 1, failure_reason: null, stage: null, progress: null }) }]);
  });
});

describe("stuck tasks", () => {
  test("a task scribing past the deadline is failed with a reason and can be retried; a younger one is left alone", async () => {
    const quiet = await startTestApp({ ...scriptPace, ROLES: "api,projections" }); // no workers: nothing moves the tasks on its own
    try {
      const user = await quiet.register();
      const old = await createTask(quiet, user, { path: "uploads/a.mp3" });
      const young = await createTask(quiet, user, { path: "uploads/b.mp3" });
      await taskCommand(quiet, old, { type: "StartTranscription" });
      await Bun.sleep(1100);
      await taskCommand(quiet, young, { type: "StartTranscription" });
      const failed = await failStuckTasks(quiet.adapters.eventStore, quiet.adapters.documents, new Date(), 1);
      expect(failed).toEqual([old]);
      const task = await getTask(quiet, user, old);
      await quiet.service.waitForProjections((await quiet.adapters.eventStore.readAll()).at(-1)!.position);
      const stale = await waitForStatus(quiet, user, old, "failed");
      expect(stale.failure_reason).toBe("Transcription did not finish within 1 s; retry the task to try again.");
      expect(task.id).toBe(old);
      expect((await getTask(quiet, user, young)).status).toBe("scribing");
      const retried = await quiet.request("PATCH", `/api/tasks/${old}/retry`, { token: user.token });
      expect((await json(retried)).status).toBe("pending");
      // A second sweep finds nothing more to do for the retried attempt.
      expect(await failStuckTasks(quiet.adapters.eventStore, quiet.adapters.documents, new Date(), 3600)).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
