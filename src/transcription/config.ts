import { readSettingsOf, type Env } from "../config/read-settings.ts";
import type { ValuesOf } from "../config/setting.ts";
import { serverSettings } from "../config/settings/server.ts";
import { transcriptionSettings } from "./settings.ts";
import { whisperModelPath } from "./whisper-models.ts";
import { whisperLanguages } from "./engines/whisper-languages.ts";

/** The capability's settings once read (src/transcription/settings.ts), and DATA_DIR, under which WHISPER_MODEL's names are kept. */
type Settings = ValuesOf<typeof transcriptionSettings> & Pick<ValuesOf<typeof serverSettings>, "DATA_DIR">;

/** Which speech recognition engine turns audio into words (see engines/). */
export type EngineName = Settings["TRANSCRIPTION_ENGINE"];
export type WhisperAccelerator = Settings["WHISPER_GPU"];

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
  /** `model`: the file's path, a catalogue name (WHISPER_MODEL=base.en) resolved to where `admin model pull` keeps it. */
  whisper: { model: string | null; accelerator: WhisperAccelerator; language: string | null; threads: number };
  openai: (OpenAiEndpoint & { language: string | null }) | null;
  /** The chat endpoint that writes summaries and mind maps; null: the embedded extractive summariser. */
  summaryOpenai: OpenAiEndpoint | null;
  /** An edited transcript's summary is made again once no edit came for this long; 0: only by refresh-summary. */
  summaryRefreshAfterEditSeconds: number;
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

/** An endpoint when its URL is set (the schema has checked it is http or https), without trailing slashes. */
const endpoint = (url: string | null, apiKey: string | null, model: string): OpenAiEndpoint | null =>
  url ? { url: url.replace(/\/+$/, ""), apiKey, model } : null;

/**
 * The transcription part of the configuration, from its settings already read (the whole schema's will do); what it
 * needs that is missing goes to `problems`.
 */
export function transcriptionConfigOf(s: Settings, problems: string[]): TranscriptionConfig {
  const engine = s.TRANSCRIPTION_ENGINE;
  if (engine === "whisper" && !s.WHISPER_MODEL) problems.push("TRANSCRIPTION_ENGINE=whisper needs WHISPER_MODEL (the path of a whisper.cpp ggml model file)");
  const language = s.WHISPER_LANGUAGE?.toLowerCase() ?? null;
  // whisper.cpp decodes a code it does not know with the wrong language token instead of refusing it: refused here, once.
  if (language !== null && language !== "auto" && !whisperLanguages.includes(language))
    problems.push(`WHISPER_LANGUAGE=${s.WHISPER_LANGUAGE} is not a language whisper knows (an ISO 639-1 code such as en, de, fr, or auto)`);
  const openai = endpoint(s.TRANSCRIPTION_OPENAI_URL, s.TRANSCRIPTION_OPENAI_KEY, s.TRANSCRIPTION_OPENAI_MODEL);
  if (engine === "openai" && !openai) problems.push("TRANSCRIPTION_ENGINE=openai needs TRANSCRIPTION_OPENAI_URL (and usually TRANSCRIPTION_OPENAI_KEY)");
  return {
    worker: s.TRANSCRIPTION_WORKER,
    engine,
    sphinx: { binary: s.SPHINX_BINARY, hmm: s.SPHINX_HMM, lm: s.SPHINX_LM, dict: s.SPHINX_DICT },
    whisper: {
      model: s.WHISPER_MODEL && whisperModelPath(s.WHISPER_MODEL, s.DATA_DIR),
      accelerator: s.WHISPER_GPU,
      language: language === "auto" ? null : language,
      threads: s.WHISPER_THREADS,
    },
    openai: openai && { ...openai, language: s.TRANSCRIPTION_LANGUAGE },
    summaryOpenai: endpoint(s.SUMMARY_OPENAI_URL, s.SUMMARY_OPENAI_KEY, s.SUMMARY_OPENAI_MODEL),
    summaryRefreshAfterEditSeconds: s.SUMMARY_REFRESH_AFTER_EDIT_SECONDS,
    recognitionConcurrency: s.RECOGNITION_CONCURRENCY,
    tasksPerWorker: s.TRANSCRIPTION_TASKS_PER_WORKER,
    chunkSeconds: s.CHUNK_SECONDS,
    scribingDeadlineSeconds: s.SCRIBING_DEADLINE_SECONDS,
    maxMediaSeconds: s.MAX_MEDIA_SECONDS,
    ackWaitSeconds: s.TRANSCRIPTION_ACK_WAIT_SECONDS,
    maxSpeakers: s.MAX_SPEAKERS,
    tempDir: s.TRANSCRIPTION_TMPDIR,
  };
}

/** The transcription configuration alone (tests, and the pipeline's defaults): every problem of its settings in one `fail`. */
export function loadTranscriptionConfig(env: Env, fail: (message: string) => Error): TranscriptionConfig {
  const { values, problems } = readSettingsOf({ ...transcriptionSettings, DATA_DIR: serverSettings.DATA_DIR }, env);
  const config = transcriptionConfigOf(values, problems);
  if (problems.length > 0) throw fail(problems.join("\n"));
  return config;
}
