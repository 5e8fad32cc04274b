import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { fliteAvailable, namedSentences, speakWithFlite } from "../support/named-speech.ts";
import { taskStream } from "../../src/tasks/events.ts";

// A task chooses its engine, language and vocabulary (issue 30, items 3 and 6): checked against what the service
// offers, recorded with the task, and handed to the engine that recognises it.
let app: TestApp;
let user: User;
const work = mkdtempSync(join(tmpdir(), "scribe-choice-"));
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  user = await app.register();
});
afterAll(async () => {
  await app?.close();
  rmSync(work, { recursive: true, force: true });
});

async function upload(bytes: Uint8Array): Promise<string> {
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/media`;
  await app.adapters.blobs.put(key, bytes, { contentType: "audio/wav" });
  return key;
}

const create = (fields: Record<string, unknown>) =>
  app.request("POST", "/api/tasks", {
    token: user.token,
    json: { disk: "objstore", name: "Choice", path: `uploads/${user.id}/x/media`, duration: 5, ...fields },
  });

const created = async (id: number) => (await app.adapters.eventStore.readStream(taskStream(id))).find((e) => e.type === "TaskCreated")!.data as Json;

describe("a task's engine, language and vocabulary on creation", () => {
  test("an engine the service does not offer, or a language PocketSphinx cannot recognise, is a 422 that says so", async () => {
    const whisper = await create({ engine: "whisper" });
    expect(whisper.status).toBe(422);
    const body = await json<{ message: string; errors: Record<string, string[]> }>(whisper);
    expect(body.errors.engine![0]).toContain("not offered by this service; it offers sphinx");

    const german = await create({ language: "de" });
    expect(german.status).toBe(422);
    expect((await json<{ errors: Record<string, string[]> }>(german)).errors.language![0]).toBe(
      "The sphinx engine recognises English only, not German; choose another engine for other languages.",
    );
  });

  test("malformed fields are 422s keyed by the field, hostile ones included", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ engine: "__proto__" }, "engine"],
      [{ engine: "kaldi" }, "engine"],
      [{ language: "english" }, "language"],
      [{ language: "e\u0000" }, "language"],
      [{ language: ["en"] }, "language"],
      [{ vocabulary: "Zorbalind" }, "vocabulary"],
      [{ vocabulary: Array.from({ length: 101 }, (_, i) => `word${i}`) }, "vocabulary"],
      [{ vocabulary: ["x".repeat(101)] }, "vocabulary.0"],
      [{ vocabulary: [""] }, "vocabulary.0"],
      [{ vocabulary: ["line\nbreak"] }, "vocabulary.0"],
      [{ vocabulary: [{ constructor: "x" }] }, "vocabulary.0"],
    ];
    for (const [fields, key] of cases) {
      const response = await create(fields);
      expect({ fields, status: response.status }).toEqual({ fields, status: 422 });
      const errors = (await json<{ errors: Record<string, string[]> }>(response)).errors;
      expect(Object.keys(errors).some((k) => k === key || k.startsWith(`${key}.`))).toBe(true);
    }
  });

  test("the choice is recorded as asked: English, `auto` as none, the vocabulary trimmed and without repeats", async () => {
    const id = await createTask(app, user, {
      path: await upload(new Uint8Array(1)),
      engine: "sphinx",
      language: "EN",
      vocabulary: ["  Zorbalind ", "zorbalind", "Quexley   contract", "Quexley contract"],
    });
    expect(await created(id)).toMatchObject({ engine: "sphinx", language: "en", vocabulary: ["Zorbalind", "Quexley contract"] });

    const plain = await createTask(app, user, { path: await upload(new Uint8Array(1)), language: "auto" });
    const data = await created(plain);
    expect(["engine", "language", "vocabulary"].filter((field) => field in data)).toEqual([]);
  });
});

const hasFlite = prerequisite("flite", fliteAvailable(), "apt-get install flite");

describe.skipIf(!hasFlite)("a vocabulary through the pipeline", () => {
  test("PocketSphinx recognises a name outside its dictionary only when the task's vocabulary has it", async () => {
    const sentence = namedSentences[0]!;
    const wav = readFileSync(await speakWithFlite(sentence.text, "rms", work, "named"));
    const text = async (vocabulary?: string[]) => {
      const id = await createTask(app, user, { path: await upload(wav), name: "Names", ...(vocabulary ? { vocabulary } : {}) });
      const task = await waitForStatus(app, user, id, "finished", 60_000);
      return (task.segments as { text: string }[]).map((s) => s.text.toLowerCase()).join(" ");
    };
    expect(await text()).not.toContain("zorbalind");
    expect(await text(sentence.names)).toContain("zorbalind");
  }, 120_000);
});
