/**
 * The live engines' factory (src/live/engines/index.ts): which streaming engine a session gets for each name, that an
 * engine the service does not offer refuses to open, and that whisper's model is read on a session's first recognition,
 * not before.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { liveEngines } from "../../src/live/engines/index.ts";
import { SphinxStreamingEngine } from "../../src/live/engines/sphinx-stream.ts";
import { WindowedStreamingEngine } from "../../src/live/engines/windowed-engine.ts";
import { WindowedRecognizer } from "../../src/live/engines/windowed-recognizer.ts";
import { loadTranscriptionConfig } from "../../src/transcription/config.ts";
import { RecognitionError } from "../../src/transcription/engine.ts";
import { recognitionOfferOf } from "../../src/transcription/recognition-offer.ts";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";
import { blocks } from "./windowed-fake-engine.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-live-engines-"));
const tempRoot = join(dir, "tmp");
mkdirSync(tempRoot);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const configOf = (env: Record<string, string>) =>
  loadTranscriptionConfig({ TRANSCRIPTION_TMPDIR: tempRoot, DATA_DIR: dir, ...env }, (message) => new Error(message));

test("the default engine for null, the same engine each time, sphinx decoding as audio arrives, and a refusal for what is not offered", async () => {
  const model = join(dir, "ggml-tiny-random.bin");
  writeTinyWhisperModel(model);
  const config = configOf({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: model });
  const offer = recognitionOfferOf(config);
  const engines = liveEngines(config, offer);
  const whisper = engines.engineFor(null);
  expect(whisper).toBeInstanceOf(WindowedStreamingEngine);
  expect(whisper.name).toBe("whisper");
  expect(engines.engineFor("whisper")).toBe(whisper);
  if (offer.engines.includes("sphinx")) expect(engines.engineFor("sphinx")).toBeInstanceOf(SphinxStreamingEngine);
  else console.log("SKIPPED: PocketSphinx is not installed here, so the factory's sphinx engine is not checked");
  const openai = engines.engineFor("openai");
  expect(openai.name).toBe("openai");
  const refused = await openai.open({ language: null, vocabulary: [] }).catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(RecognitionError);
  expect((refused as Error).message).toBe("The openai engine is not offered by this service");
  await engines.close();
});

test("an OpenAI-compatible endpoint goes through the window too", () => {
  const config = configOf({ TRANSCRIPTION_OPENAI_URL: "http://127.0.0.1:9/v1" });
  const openai = liveEngines(config, recognitionOfferOf(config)).engineFor("openai");
  expect(openai).toBeInstanceOf(WindowedStreamingEngine);
  expect(openai.name).toBe("openai");
});

test("whisper's model is loaded by a session's first recognition, not when the engine is made or opened", async () => {
  const model = join(dir, "ggml-gone.bin");
  writeTinyWhisperModel(model);
  const config = configOf({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: model });
  const offer = recognitionOfferOf(config);
  rmSync(model); // offered while it was there; gone now, so loading it fails, and says when it was tried
  const engines = liveEngines(config, offer);
  const recognizer = await engines.engineFor("whisper").open({ language: null, vocabulary: [] });
  recognizer.push(blocks(1, 10));
  const error = await recognizer.partial().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RecognitionError);
  expect((error as Error).message).toContain(`The whisper model ${model} could not be loaded`);
  recognizer.close();
  await engines.close();
  if (recognizer instanceof WindowedRecognizer) await recognizer.closed;
  expect(readdirSync(tempRoot).filter((name) => name.includes("-live-"))).toEqual([]);
});
