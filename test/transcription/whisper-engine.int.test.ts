/**
 * The whisper engine cannot be tested for recognition here: no whisper model can be fetched on our
 * build machines (see README). What is tested: the npm binding loads under Bun, and a model that
 * cannot be loaded fails the task with a readable reason. Set WHISPER_TEST_MODEL to a ggml model file
 * to also run a real recognition.
 */
import { describe, expect, test } from "bun:test";
import { WhisperEngine } from "../../src/transcription/engines/whisper.ts";
import { RecognitionError } from "../../src/transcription/engine.ts";
import { writeWavSlice } from "../../src/transcription/wav.ts";
import { startTestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, waitForStatus } from "../support/tasks.ts";
import { ffmpeg, joinedMp3, librispeechDir, spoken } from "../support/media-fixtures.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knownSkip } from "../support/prerequisites.ts";

describe("whisper engine (@fugood/whisper.node)", () => {
  test("the binding loads; a missing model is a RecognitionError naming it", async () => {
    const binding = (await import("@fugood/whisper.node")) as unknown as { loadWhisperModule(): Promise<{ WhisperContext: unknown }> };
    expect(typeof (await binding.loadWhisperModule()).WhisperContext).toBe("function");
    const engine = new WhisperEngine({ model: "/nonexistent/ggml-base.en.bin", accelerator: "none", language: "en", threads: 1 });
    const error = await engine.recognize("/nonexistent.wav", { durationMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecognitionError);
    expect((error as Error).message).toStartWith("The whisper model /nonexistent/ggml-base.en.bin could not be loaded");
  });

  test("through the pipeline: the task fails with that reason", async () => {
    const app = await startTestApp({ ...scriptPace, TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: "/nonexistent/ggml-base.en.bin" });
    try {
      const user = await app.register();
      const media = (await joinedMp3([await spoken("He could wait no longer.")], 0.5)).bytes;
      const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/speech.mp3`;
      await app.adapters.blobs.put(path, media, { contentType: "audio/mpeg" });
      const id = await createTask(app, user, { path });
      const task = await waitForStatus(app, user, id, "failed", 20_000);
      expect(task.failure_reason as string).toMatch(/^The whisper model \/nonexistent\/ggml-base\.en\.bin could not be loaded/);
    } finally {
      await app.close();
    }
  });

  const model = process.env.WHISPER_TEST_MODEL;
  test.skipIf(!model)("with WHISPER_TEST_MODEL: recognises a LibriSpeech clip", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scribe-whisper-"));
    const pcm = join(dir, "clip.pcm");
    await ffmpeg("-i", join(librispeechDir, "1089-134691-0000.flac"), "-ac", "1", "-ar", "16000", "-f", "s16le", pcm);
    await writeWavSlice(pcm, 0, 10_000, join(dir, "clip.wav"));
    const engine = new WhisperEngine({ model: model!, accelerator: (process.env.WHISPER_GPU as "none") ?? "none", language: "en", threads: 2 });
    const result = await engine.recognize(join(dir, "clip.wav"), { durationMs: 2085 });
    expect(
      result.words
        .map((w) => w.text)
        .join(" ")
        .toLowerCase(),
    ).toContain("wait no longer");
    await engine.close();
  });
});
if (!process.env.WHISPER_TEST_MODEL) knownSkip("whisper recognition — set WHISPER_TEST_MODEL to a ggml model file to run it");
