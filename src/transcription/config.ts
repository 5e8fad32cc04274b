import { cpus } from "node:os";

/** Which speech recognition engine turns audio into words (see engines/). */
export type EngineName = "sphinx" | "whisper" | "openai";
export type WhisperAccelerator = "none" | "cuda" | "vulkan";

/** An OpenAI-compatible HTTP endpoint: `url` is the base (`https://api.openai.com` or `.../v1`). */
export type OpenAiEndpoint = { url: string; apiKey: string | null; model: string };

/** Everything the transcription pipeline reads from the environment (validated once, at start). */
export type TranscriptionConfig = {
  /**
   * Whether this process's workers role transcribes (TRANSCRIPTION_WORKER=on|off). Off: a worker node
   * without ffmpeg or an engine (other worker nodes transcribe), and the tests of the task API alone.
   */
  worker: boolean;
  engine: EngineName;
  sphinx: { binary: string; hmm: string; lm: string; dict: string };
  whisper: { model: string | null; accelerator: WhisperAccelerator; language: string | null; threads: number };
  openai: (OpenAiEndpoint & { language: string | null }) | null;
  /** The chat endpoint that writes summaries and mind maps; null: the embedded extractive summariser. */
  summaryOpenai: OpenAiEndpoint | null;
  /** Recognition processes (chunks) running at once in this process, across all tasks, shared round-robin between accounts. */
  recognitionConcurrency: number;
  /** Tasks one worker process transcribes at once (TRANSCRIPTION_TASKS_PER_WORKER): they share the recognisers above. */
  tasksPerWorker: number;
  /** Chunks aim at this length, cut at pauses; a chunk never exceeds twice it. */
  chunkSeconds: number;
  /** A task scribing longer than this is failed (and can be retried) by the stuck-task sweeper. */
  scribingDeadlineSeconds: number;
  /** Media longer than this is refused with a reason instead of being transcribed. */
  maxMediaSeconds: number;
  /** How long the bus waits for a transcription's heartbeat before handing it to another worker. */
  ackWaitSeconds: number;
  maxSpeakers: number;
  /** Where media is copied and decoded while a task is transcribed. */
  tempDir: string | null;
};

type Env = Record<string, string | undefined>;

const sphinxModel = "/usr/share/pocketsphinx/model/en-us";

export function loadTranscriptionConfig(env: Env, fail: (message: string) => Error): TranscriptionConfig {
  const text = (from: Env, name: string) => from[name]?.trim() || null;
  const integer = (from: Env, name: string, fallback: number, min: number, max: number) => {
    const raw = text(from, name);
    if (raw === null) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) throw fail(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
    return value;
  };
  const oneOf = <T extends string>(from: Env, name: string, values: readonly T[], fallback: T): T => {
    const raw = text(from, name) ?? fallback;
    if (!values.includes(raw as T)) throw fail(`${name} must be one of ${values.join(", ")}, got "${raw}"`);
    return raw as T;
  };
  // Names written out in full, so that a scan for the variables the service reads finds them.
  const endpoint = (urlName: string, url: string | null, key: string | null, model: string | null, defaultModel: string): OpenAiEndpoint | null => {
    if (!url) return null;
    if (!/^https?:\/\//.test(url)) throw fail(`${urlName} must be an http(s) URL, got "${url}"`);
    return { url: url.replace(/\/+$/, ""), apiKey: key, model: model ?? defaultModel };
  };

  const engine = oneOf<EngineName>(env, "TRANSCRIPTION_ENGINE", ["sphinx", "whisper", "openai"], "sphinx");
  const whisperModel = text(env, "WHISPER_MODEL");
  if (engine === "whisper" && !whisperModel) throw fail("TRANSCRIPTION_ENGINE=whisper needs WHISPER_MODEL (the path of a whisper.cpp ggml model file)");
  const openai = endpoint(
    "TRANSCRIPTION_OPENAI_URL",
    text(env, "TRANSCRIPTION_OPENAI_URL"),
    text(env, "TRANSCRIPTION_OPENAI_KEY"),
    text(env, "TRANSCRIPTION_OPENAI_MODEL"),
    "whisper-1",
  );
  if (engine === "openai" && !openai) throw fail("TRANSCRIPTION_ENGINE=openai needs TRANSCRIPTION_OPENAI_URL (and usually TRANSCRIPTION_OPENAI_KEY)");
  const cores = Math.max(1, cpus().length);

  return {
    worker: oneOf(env, "TRANSCRIPTION_WORKER", ["on", "off"], "on") === "on",
    engine,
    sphinx: {
      binary: text(env, "SPHINX_BINARY") ?? "pocketsphinx_continuous",
      hmm: text(env, "SPHINX_HMM") ?? `${sphinxModel}/en-us`,
      lm: text(env, "SPHINX_LM") ?? `${sphinxModel}/en-us.lm.bin`,
      dict: text(env, "SPHINX_DICT") ?? `${sphinxModel}/cmudict-en-us.dict`,
    },
    whisper: {
      model: whisperModel,
      accelerator: oneOf<WhisperAccelerator>(env, "WHISPER_GPU", ["none", "cuda", "vulkan"], "none"),
      language: text(env, "WHISPER_LANGUAGE"),
      threads: integer(env, "WHISPER_THREADS", cores, 1, 256),
    },
    openai: openai && { ...openai, language: text(env, "TRANSCRIPTION_LANGUAGE") },
    summaryOpenai: endpoint(
      "SUMMARY_OPENAI_URL",
      text(env, "SUMMARY_OPENAI_URL"),
      text(env, "SUMMARY_OPENAI_KEY"),
      text(env, "SUMMARY_OPENAI_MODEL"),
      "gpt-4o-mini",
    ),
    recognitionConcurrency: integer(env, "RECOGNITION_CONCURRENCY", cores, 1, 256),
    tasksPerWorker: integer(env, "TRANSCRIPTION_TASKS_PER_WORKER", 8, 1, 256),
    chunkSeconds: integer(env, "CHUNK_SECONDS", 30, 5, 3600),
    scribingDeadlineSeconds: integer(env, "SCRIBING_DEADLINE_SECONDS", 7200, 10, 7 * 24 * 3600),
    maxMediaSeconds: integer(env, "MAX_MEDIA_SECONDS", 6 * 3600, 1, 7 * 24 * 3600),
    ackWaitSeconds: integer(env, "TRANSCRIPTION_ACK_WAIT_SECONDS", 30, 1, 3600),
    maxSpeakers: integer(env, "MAX_SPEAKERS", 6, 2, 20),
    tempDir: text(env, "TRANSCRIPTION_TMPDIR"),
  };
}
