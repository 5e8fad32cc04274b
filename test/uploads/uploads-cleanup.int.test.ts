import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { json } from "../support/tasks.ts";
import { bytes, complete, completeBody, putSigned, sign, signPart, uploadParts, type Session } from "../support/uploads.ts";
import { cleanUpUploads } from "../../src/uploads/upload-cleanup-job.ts";
import { Uploads } from "../../src/uploads/service.ts";
import { Tasks } from "../../src/tasks/service.ts";
import { NoSuchUploadError } from "../../src/blobs/port.ts";
import { handle } from "../../src/core/command-handler.ts";
import { nextId } from "../../src/core/sequence.ts";
import { fold } from "../../src/core/decider.ts";
import { uploadDecider } from "../../src/uploads/decider.ts";
import { uploadStream } from "../../src/uploads/events.ts";
import type { UploadDocument } from "../../src/uploads/uploads-projection.ts";

let app: TestApp;
let uploads: Uploads;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  uploads = new Uploads(
    app.adapters.eventStore,
    app.adapters.blobs,
    new Tasks(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections, app.adapters.transcripts),
  );
});
afterAll(() => app.close());

const settle = async () => {
  const last = (await app.adapters.eventStore.readAll({ limit: 1_000_000 })).at(-1)!;
  await app.service.waitForProjections(last.position);
};
const sessionState = async (uploadId: string) => fold(uploadDecider, (await app.adapters.eventStore.readStream(uploadStream(uploadId))) as never);

test("sessions past their expiry are expired and their parts deleted; open and completed ones are left alone", async () => {
  const user = await app.register();
  const data = bytes(1000);
  const stale = await sign(app, user, { file: "stale.mp3", content_type: "audio/mpeg", size: data.byteLength });
  await uploadParts(app, user, stale, data);
  const done = await sign(app, user, { file: "done.mp3", content_type: "audio/mpeg", size: data.byteLength });
  await uploadParts(app, user, done, data);
  expect((await complete(app, user, completeBody(done, "done.mp3", "audio/mpeg", data.byteLength))).status).toBe(201);
  await settle();
  const staleState = await sessionState(stale.upload_id);
  if (staleState.status === "none") throw new Error("no session");
  const storageId = staleState.session.storageUploadId;

  // Not due yet: nothing happens.
  expect(await cleanUpUploads(uploads, app.adapters.documents, new Date(Date.parse(stale.expires_at) - 1000), app.adapters.blobs)).toEqual({
    expired: 0,
    finished: 0,
  });

  const fresh = await sign(app, user, { file: "fresh.mp3", content_type: "audio/mpeg", size: data.byteLength });
  await settle();
  const later = new Date(Date.parse(stale.expires_at) + 1000);
  const result = await cleanUpUploads(uploads, app.adapters.documents, later, app.adapters.blobs);
  // `fresh` was signed a moment after `stale`, so at `later` it may be due as well.
  expect(result.expired).toBeGreaterThanOrEqual(1);
  expect((await sessionState(stale.upload_id)).status).toBe("expired");
  expect((await sessionState(done.upload_id)).status).toBe("completed");
  await expect(app.adapters.blobs.listParts(stale.path, storageId)).rejects.toBeInstanceOf(NoSuchUploadError);
  expect(await app.adapters.blobs.head(done.path)).not.toBeNull();

  // A second run has nothing left to do, and the expired session refuses parts and complete.
  await settle();
  expect(await cleanUpUploads(uploads, app.adapters.documents, later, app.adapters.blobs)).toEqual({ expired: 0, finished: 0 });
  const part = await app.request("POST", "/api/uploads/sign-part", {
    token: user.token,
    json: { path: stale.path, upload_id: stale.upload_id, part_number: 1 },
  });
  expect(part.status).toBe(422);
  expect((await json<{ message: string }>(part)).message).toMatch(/expired/);
  expect((await complete(app, user, completeBody(stale, "stale.mp3", "audio/mpeg", data.byteLength))).status).toBe(422);
  const docs = await app.adapters.documents.collection<UploadDocument>("uploads").find({ userId: user.id });
  expect(docs.find((d) => d.uploadId === stale.upload_id)?.status).toBe("expired");
  expect(docs.find((d) => d.uploadId === done.upload_id)).toMatchObject({ status: "completed", taskCreated: true });
  expect(fresh.upload_id).toBeString();
});

test("a session whose expiry passed but was not yet cleaned up refuses parts already", async () => {
  const user = await app.register();
  let now = new Date();
  const clocked = new Uploads(
    app.adapters.eventStore,
    app.adapters.blobs,
    new Tasks(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections, app.adapters.transcripts),
    () => now,
  );
  const session = await clocked.sign(
    { userId: user.id, kind: "token", credentialId: "t" },
    (await app.adapters.documents.collection("users").findOne({ _id: String(user.id) })) as never,
    { file: "a.mp3", content_type: "audio/mpeg", size: 10 },
    { correlationId: "c", causationId: null, userId: null, system: "test" },
  );
  const { url } = await clocked.signPart(
    user.id,
    { path: session.path, upload_id: session.upload_id, part_number: 1 },
    { correlationId: "c", causationId: null, userId: null, system: "test" },
  );
  expect(new URL(url).searchParams.get("expires")).toBeString();
  now = new Date(Date.parse(session.expires_at));
  await expect(
    clocked.signPart(
      user.id,
      { path: session.path, upload_id: session.upload_id, part_number: 1 },
      { correlationId: "c", causationId: null, userId: null, system: "test" },
    ),
  ).rejects.toThrow(/expired/);
  expect((await putSigned(app, (await signPart(app, user, session, 1)).url, bytes(10))).status).toBe(200);
});

/** What complete records before the process manager takes over: a task id on the upload, nothing assembled, no task. */
async function recordCompletion(on: TestApp, user: { id: number }, session: Session, completedAt: string): Promise<number> {
  const taskId = await nextId(on.adapters.eventStore, "task", "test");
  await handle(
    on.adapters.eventStore,
    uploadStream(session.upload_id),
    uploadDecider,
    (state) =>
      uploadDecider.decide(
        {
          type: "CompleteUpload",
          userId: user.id,
          key: session.path,
          completion: { taskId, name: "orphan", file: "orphan.wav", duration: null, speakerDiarization: false },
          now: completedAt,
        },
        state,
      ),
    { metadata: { correlationId: "test", causationId: null, userId: null, system: "test" } },
  );
  return taskId;
}

test("a recorded completion is carried on by the upload-completion worker: the object assembled, the task created", async () => {
  const user = await app.register();
  const data = bytes(2000, 7);
  const session = await sign(app, user, { file: "orphan.wav", content_type: "audio/wav", size: data.byteLength });
  await uploadParts(app, user, session, data);
  const taskId = await recordCompletion(app, user, session, new Date().toISOString());
  let response = await app.request("GET", `/api/tasks/${taskId}`, { token: user.token });
  for (let i = 0; i < 200 && response.status === 404; i++) {
    await Bun.sleep(10);
    response = await app.request("GET", `/api/tasks/${taskId}`, { token: user.token });
  }
  expect(await json<{ id: number; path: string; size: number }>(response)).toMatchObject({ id: taskId, path: session.path, size: data.byteLength });
  expect(await app.adapters.blobs.head(session.path)).toEqual({ size: data.byteLength, contentType: "audio/wav" });
  // The worker's task was caused by the completion event, in the same correlation.
  const [created] = await app.adapters.eventStore.readStream(`task-${taskId}`, { maxCount: 1 });
  const [, completed] = await app.adapters.eventStore.readStream(uploadStream(session.upload_id));
  expect(created!.metadata).toMatchObject({ correlationId: "test", causationId: completed!.id });
  // The client's repeated complete gets that same task.
  const again = await complete(app, user, completeBody(session, "orphan.wav", "audio/wav", data.byteLength));
  expect(again.status).toBe(201);
  expect((await json<{ task: { id: number } }>(again)).task.id).toBe(taskId);
});

test("with no worker running, complete finishes its own completion after waiting, and the job finishes one whose request died", async () => {
  const noWorkers = await startTestApp({ ...scriptPace, ROLES: "api,projections" });
  try {
    const patient = new Uploads(
      noWorkers.adapters.eventStore,
      noWorkers.adapters.blobs,
      new Tasks(noWorkers.adapters.eventStore, noWorkers.adapters.documents, noWorkers.service.waitForProjections, noWorkers.adapters.transcripts),
      () => new Date(),
      50,
    );
    const user = await noWorkers.register();
    const caller = { userId: user.id, kind: "token" as const, credentialId: "t" };
    const account = (await noWorkers.adapters.documents.collection("users").findOne({ _id: String(user.id) })) as never;
    const metadata = { correlationId: "c", causationId: null, userId: user.id, system: null };
    const data = bytes(1500, 3);
    const waited = await sign(noWorkers, user, { file: "waited.wav", content_type: "audio/wav", size: data.byteLength });
    await uploadParts(noWorkers, user, waited, data);
    const task = await patient.complete(
      caller,
      account,
      { path: waited.path, upload_id: waited.upload_id, original_name: "waited.wav", content_type: "audio/wav", size: data.byteLength },
      metadata,
    );
    expect(task).toMatchObject({ path: waited.path, size: data.byteLength, status: "pending" });

    const died = await sign(noWorkers, user, { file: "orphan.wav", content_type: "audio/wav", size: data.byteLength });
    await uploadParts(noWorkers, user, died, data);
    const taskId = await recordCompletion(noWorkers, user, died, new Date(Date.now() - 11 * 60_000).toISOString());
    const settleAll = async () => {
      const last = (await noWorkers.adapters.eventStore.readAll({ limit: 1_000_000 })).at(-1)!;
      await noWorkers.service.waitForProjections(last.position);
    };
    await settleAll();
    expect(await cleanUpUploads(patient, noWorkers.adapters.documents, new Date(), null)).toMatchObject({ finished: 1 });
    const finished = await json<{ id: number; path: string }>(await noWorkers.request("GET", `/api/tasks/${taskId}`, { token: user.token }));
    expect(finished).toMatchObject({ id: taskId, path: died.path });
    await settleAll();
    expect(await cleanUpUploads(patient, noWorkers.adapters.documents, new Date(), null)).toMatchObject({ finished: 0 });
  } finally {
    await noWorkers.close();
  }
});
