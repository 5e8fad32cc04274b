import { cpus } from "node:os";
import { engineNames } from "../tasks/recognition-choice.ts";
import { flag, integer, oneOf, optionalText, secret, text, url } from "../config/setting.ts";
import { defaultWhisperModelsUrl, whisperModels } from "./whisper-models.ts";

const sphinxModel = "/usr/share/pocketsphinx/model/en-us";
const cores = Math.max(1, cpus().length);
const group = "transcription";

/**
 * The recognition pipeline and its engines (docs/api.md, docs/operations.md), then the chat endpoint that writes
 * summaries and mind maps (unset, the embedded extractive summariser does).
 */
export const transcriptionSettings = {
  TRANSCRIPTION_WORKER: flag({
    group,
    words: ["on", "off"],
    fallback: true,
    description: "Whether this process's workers role transcribes (off: a worker node without ffmpeg or an engine).",
  }),
  TRANSCRIPTION_ENGINE: oneOf({ group, values: engineNames, fallback: "sphinx", description: "The speech recognition engine." }),
  SPHINX_BINARY: text({ group, kind: "program", fallback: "pocketsphinx_continuous", description: "PocketSphinx's program." }),
  SPHINX_HMM: text({ group, kind: "path", fallback: `${sphinxModel}/en-us`, description: "PocketSphinx's acoustic model." }),
  SPHINX_LM: text({ group, kind: "path", fallback: `${sphinxModel}/en-us.lm.bin`, description: "PocketSphinx's language model." }),
  SPHINX_DICT: text({ group, kind: "path", fallback: `${sphinxModel}/cmudict-en-us.dict`, description: "PocketSphinx's pronunciation dictionary." }),
  WHISPER_MODEL: optionalText({
    group,
    kind: "name or path",
    description:
      "The whisper.cpp ggml model: a name `bun run admin model pull` fetches into DATA_DIR/models/whisper " +
      `(${whisperModels.map((m) => m.name).join(", ")}), or a model file's path; required by TRANSCRIPTION_ENGINE=whisper.`,
  }),
  WHISPER_MODEL_BASE_URL: url({
    group,
    protocols: ["http", "https"],
    shownDefault: defaultWhisperModelsUrl,
    description: "Where `bun run admin model pull` fetches ggml-<name>.bin from (a mirror); every file is checked against its pinned SHA-256.",
  }),
  WHISPER_GPU: oneOf({ group, values: ["none", "cuda", "vulkan"], fallback: "none", description: "The accelerator whisper.cpp runs on." }),
  WHISPER_LANGUAGE: optionalText({ group, shownDefault: "detected", description: "The language whisper recognises, e.g. en." }),
  WHISPER_THREADS: integer({ group, min: 1, max: 256, fallback: cores, shownDefault: "number of cores", description: "CPU threads whisper.cpp uses." }),
  TRANSCRIPTION_OPENAI_URL: url({
    group,
    protocols: ["http", "https"],
    description: "An OpenAI-compatible endpoint's base URL; required by TRANSCRIPTION_ENGINE=openai.",
  }),
  TRANSCRIPTION_OPENAI_KEY: secret({ group, description: "The API key sent to TRANSCRIPTION_OPENAI_URL." }),
  TRANSCRIPTION_OPENAI_MODEL: text({ group, fallback: "whisper-1", description: "The model asked of TRANSCRIPTION_OPENAI_URL." }),
  TRANSCRIPTION_LANGUAGE: optionalText({ group, shownDefault: "detected", description: "The language asked of TRANSCRIPTION_OPENAI_URL." }),
  RECOGNITION_CONCURRENCY: integer({
    group,
    min: 1,
    max: 256,
    fallback: cores,
    shownDefault: "number of cores",
    description: "Chunks recognised at once in this process, across tasks, shared round-robin between accounts.",
  }),
  TRANSCRIPTION_TASKS_PER_WORKER: integer({ group, min: 1, max: 256, fallback: 8, description: "Tasks one worker process transcribes at once." }),
  CHUNK_SECONDS: integer({ group, min: 5, max: 3600, fallback: 30, description: "The length chunks aim at, cut at pauses (never over twice it)." }),
  SCRIBING_DEADLINE_SECONDS: integer({
    group,
    min: 10,
    max: 7 * 24 * 3600,
    fallback: 7200,
    description:
      "A task scribing longer is failed by the stuck-task sweeper; one pending or waiting for a quarter of it is re-driven, and failed after 3 " +
      "re-drives (either can be retried).",
  }),
  MAX_MEDIA_SECONDS: integer({ group, min: 1, max: 7 * 24 * 3600, fallback: 6 * 3600, description: "Longer media is refused with a reason." }),
  TRANSCRIPTION_ACK_WAIT_SECONDS: integer({
    group,
    min: 1,
    max: 3600,
    fallback: 30,
    description: "How long NATS waits for a transcription's heartbeat before handing it to another worker.",
  }),
  MAX_SPEAKERS: integer({ group, min: 2, max: 20, fallback: 6, description: "The most speakers diarization finds." }),
  TRANSCRIPTION_TMPDIR: optionalText({
    group,
    kind: "path",
    shownDefault: "the OS temp dir",
    description: "Where media is copied and decoded while a task is transcribed, and PocketSphinx's vocabulary models are kept (up to about 480 MB).",
  }),
  SUMMARY_OPENAI_URL: url({
    group: "summaries",
    protocols: ["http", "https"],
    shownDefault: "unset: extractive summaries",
    description: "An OpenAI-compatible chat endpoint's base URL that writes summaries and mind maps.",
  }),
  SUMMARY_OPENAI_KEY: secret({ group: "summaries", description: "The API key sent to SUMMARY_OPENAI_URL." }),
  SUMMARY_OPENAI_MODEL: text({ group: "summaries", fallback: "gpt-4o-mini", description: "The model asked of SUMMARY_OPENAI_URL." }),
  SUMMARY_REFRESH_AFTER_EDIT_SECONDS: integer({
    group: "summaries",
    min: 0,
    max: 7 * 24 * 3600,
    fallback: 30,
    description:
      "An edited transcript's summary and mind map are made again once no edit came for this long; 0: never by themselves (the task says " +
      "they are out of date until refresh-summary).",
  }),
} as const;
