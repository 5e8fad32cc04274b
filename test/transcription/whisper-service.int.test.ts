/**
 * The service with TRANSCRIPTION_ENGINE=whisper: a model that cannot be loaded fails the task with whisper.cpp's
 * reason; the generated model (random weights, test/support/ggml-whisper-model.ts) takes a task created over HTTP
 * to its end through the whole pipeline.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { joinedMp3, spoken } from "../support/media-fixtures.ts";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-whisper-service-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function uploadSpeech(app: TestApp, user: User): Promise<number> {
  const media = (await joinedMp3([await spoken("He could wait no longer."), await spoken("The engine is proven, not accurate.")], 0.6)).bytes;
  const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/speech.mp3`;
  await app.adapters.blobs.put(path, media, { contentType: "audio/mpeg" });
  return createTask(app, user, { path });
}

async function untilEnded(app: TestApp, user: User, id: number, timeoutMs: number): Promise<Json> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(app, user, id);
    if (task.status === "finished" || task.status === "failed") return task;
    if (Date.now() > deadline) throw new Error(`task ${id} is ${String(task.status)} after ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

describe("TRANSCRIPTION_ENGINE=whisper through the service", () => {
  test("a model that cannot be loaded fails the task with that reason", async () => {
    const app = await startTestApp({ ...scriptPace, TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: "/nonexistent/ggml-base.en.bin" });
    try {
      const user = await app.register();
      const task = await waitForStatus(app, user, await uploadSpeech(app, user), "failed", 20_000);
      expect(task.failure_reason as string).toMatch(/^The whisper model \/nonexistent\/ggml-base\.en\.bin could not be loaded/);
    } finally {
      await app.close();
    }
  });

  test("the generated model takes a task to its end: timed segments of its made-up words", async () => {
    const model = writeTinyWhisperModel(join(dir, "ggml-tiny-random.bin"));
    const app = await startTestApp({ ...scriptPace, TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: model, WHISPER_THREADS: "2" });
    try {
      const user = await app.register();
      const task = await untilEnded(app, user, await uploadSpeech(app, user), 30_000);
      // Random weights could say nothing, and then the honest end is this failure; the seed used says words.
      if (task.status === "failed") {
        expect(task.failure_reason).toBe("No speech was recognised in the media.");
        return;
      }
      const segments = task.segments as { start: number; end: number; text: string }[];
      expect(segments.length).toBeGreaterThan(0);
      for (const segment of segments) {
        expect(segment.start).toBeGreaterThanOrEqual(0);
        expect(segment.end).toBeGreaterThanOrEqual(segment.start);
        expect(segment.end).toBeLessThanOrEqual((task.duration as number) * 1000);
      }
      // words only this model says (syllables of its made-up vocabulary): whisper ran, not another engine
      expect(segments.map((s) => s.text).join(" ")).toMatch(/\b(?:[bdfgklmnprstvz][aeiou]){2,}\b/i);
    } finally {
      await app.close();
    }
  });
});
