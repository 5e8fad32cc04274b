/**
 * A task's engine, language and vocabulary (issue 30, items 3 and 6) in its detail, asked for on task creation or on
 * upload completion; and the upload completion's 422s for an engine or a language the service does not offer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, json, type Json, type User } from "../support/tasks.ts";
import { bytes, complete, completeBody, sign, uploadParts } from "../support/uploads.ts";
import { until } from "../support/eventually.ts";

let app: TestApp;
let user: User;
beforeAll(async () => {
  // Nothing is recognised here: the detail shows what the task asked, whatever became of it.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
  user = await app.register();
});
afterAll(() => app?.close());

const media = bytes(2048);
const stored = async () => {
  const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/media.wav`;
  await app.adapters.blobs.put(path, media, { contentType: "audio/wav" });
  return path;
};

/** An upload of `media` with every part stored, and the body that completes it with `extra`. */
async function uploaded(owner: User, extra: Json) {
  const session = await sign(app, owner, { file: "Board meeting.wav", content_type: "audio/wav", size: media.byteLength, duration: 3 });
  await uploadParts(app, owner, session, media);
  return completeBody(session, "Board meeting.wav", "audio/wav", media.byteLength, extra);
}

const choiceOf = (task: Json) => ({ engine: task.engine, language: task.language, vocabulary: task.vocabulary });

describe("the task detail's engine, language and vocabulary", () => {
  test("a task created with them shows them as recorded; one that asked nothing shows null, null and []", async () => {
    const asked = await createTask(app, user, {
      path: await stored(),
      engine: "sphinx",
      language: "EN",
      vocabulary: [" Zorbalind ", "zorbalind", "Quexley contract"],
    });
    expect(choiceOf(await getTask(app, user, asked))).toEqual({ engine: "sphinx", language: "en", vocabulary: ["Zorbalind", "Quexley contract"] });

    const plain = await createTask(app, user, { path: await stored(), language: "auto" });
    expect(choiceOf(await getTask(app, user, plain))).toEqual({ engine: null, language: null, vocabulary: [] });
  });

  test("the upload completion records them on its task", async () => {
    const response = await complete(app, user, await uploaded(user, { engine: "sphinx", vocabulary: ["Ada Lovelace", "Babbage"] }));
    expect(response.status).toBe(201);
    const { task } = await json<{ task: { id: number } }>(response);
    const detail = await until<Json>("the completed upload's task", async () => {
      const read = await app.request("GET", `/api/tasks/${task.id}`, { token: user.token });
      return read.status === 200 ? json(read) : null;
    });
    expect(choiceOf(detail)).toEqual({ engine: "sphinx", language: null, vocabulary: ["Ada Lovelace", "Babbage"] });
  });

  test("the upload completion refuses an engine not offered, and a language PocketSphinx cannot recognise, before any task", async () => {
    // Its own account: the others' tasks, never recognised here, hold the 3 slots a user has.
    const owner = await app.register();
    const body = await uploaded(owner, { engine: "whisper" });
    const refused = await complete(app, owner, body);
    expect(refused.status).toBe(422);
    const { errors } = await json<{ errors: Record<string, string[]> }>(refused);
    expect(errors.engine).toEqual(["The engine whisper is not offered by this service; it offers sphinx."]);

    const german = await complete(app, owner, { ...body, engine: undefined, language: "de" });
    expect(german.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(german)).errors.language![0]).toContain("recognises English only, not German");

    const hostile: [Json, string][] = [
      [{ engine: "__proto__" }, "engine"],
      [{ vocabulary: Array.from({ length: 101 }, (_, i) => `w${i}`) }, "vocabulary"],
      [{ vocabulary: ["x".repeat(101)] }, "vocabulary.0"],
      [{ vocabulary: ["tab\there"] }, "vocabulary.0"],
    ];
    for (const [fields, key] of hostile) {
      const response = await complete(app, owner, { ...body, ...fields });
      expect({ fields, status: response.status }).toEqual({ fields, status: 422 });
      const keys = Object.keys((await json<{ errors: Record<string, string[]> }>(response)).errors);
      expect(keys.some((k) => k === key || k.startsWith(`${key}.`))).toBe(true);
    }
    // Still open: the same upload completes once its fields are right.
    expect((await complete(app, owner, { ...body, engine: "sphinx" })).status).toBe(201);
  });

  test("the OpenAPI document's Task has them", async () => {
    const document = await json<{ components: { schemas: { Task: { properties: Record<string, unknown>; required: string[] } } } }>(
      await app.request("GET", "/swagger/json"),
    );
    const { properties, required } = document.components.schemas.Task;
    expect(Object.keys(properties)).toEqual(expect.arrayContaining(["engine", "language", "vocabulary"]));
    expect(required).toEqual(expect.arrayContaining(["engine", "language", "vocabulary"]));
  });
});
