import { stat } from "node:fs/promises";
import type { Env } from "../config/read-settings.ts";
import { readSetting } from "../config/read-settings.ts";
import { serverSettings } from "../config/settings/server.ts";
import { transcriptionSettings } from "../transcription/settings.ts";
import { DownloadError, downloadVerified, sha256OfFile, type DownloadFailure } from "../transcription/verified-download.ts";
import {
  whisperModelFile,
  whisperModelNamed,
  whisperModels,
  whisperModelsFolder,
  whisperModelUrl,
  type WhisperModel,
} from "../transcription/whisper-models.ts";
import { progressReporter, type ProgressStream } from "./model-progress.ts";

/** `admin model pull <name>` and `admin model list`. */
export type ModelCommand = { type: "model-pull"; name: string } | { type: "model-list" };

/** What the commands read besides the words: the environment, the catalogue (tests pin their own), where progress goes. */
export type ModelCommandContext = { env: Env; catalogue: readonly WhisperModel[]; progress: ProgressStream };

/** What the operator sees: lines for stdout, and on failure one message for stderr and exit 1. */
export type ModelCommandResult = { code: 0; lines: string[] } | { code: 1; error: string };

const defaults = (): ModelCommandContext => ({ env: process.env, catalogue: whisperModels, progress: process.stderr });

/** What to do next, by why the download stopped. */
const remedies: Record<DownloadFailure, (part: string) => string> = {
  unreachable: () => "is this machine offline? Check its network (or set WHISPER_MODEL_BASE_URL to a mirror you can reach), then run the command again",
  status: () => "check WHISPER_MODEL_BASE_URL (unset: Hugging Face's whisper.cpp repository), then run the command again",
  size: () => "the server does not serve the pinned file: check WHISPER_MODEL_BASE_URL",
  cut: (part) => `run the same command again: it resumes from the bytes kept in ${part}`,
  hash: () => "the server does not serve the pinned file: check WHISPER_MODEL_BASE_URL, or try again later",
};

async function sizeOf(path: string): Promise<number | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? info.size : null;
  } catch {
    return null;
  }
}

async function pull(entry: WhisperModel, context: ModelCommandContext): Promise<ModelCommandResult> {
  const dataDir = readSetting(serverSettings, context.env, "DATA_DIR");
  const path = whisperModelFile(entry, dataDir);
  const use = `use it with WHISPER_MODEL=${entry.name} TRANSCRIPTION_ENGINE=whisper`;
  if ((await sizeOf(path)) === entry.size && (await sha256OfFile(path)) === entry.sha256)
    return { code: 0, lines: [`${entry.name} is already at ${path} (size and SHA-256 verified); ${use}`] };
  const url = whisperModelUrl(entry, readSetting(transcriptionSettings, context.env, "WHISPER_MODEL_BASE_URL"));
  const progress = progressReporter(`${entry.name}`, context.progress);
  try {
    const { resumedFrom, fetched } = await downloadVerified({ url, path, size: entry.size, sha256: entry.sha256 }, { onProgress: progress.update });
    progress.done();
    const resumed = resumedFrom > 0 ? `, resumed after ${resumedFrom} bytes` : "";
    return { code: 0, lines: [`${entry.name} saved to ${path} (${fetched} bytes fetched${resumed}; SHA-256 verified); ${use}`] };
  } catch (error) {
    progress.done();
    if (!(error instanceof DownloadError)) throw error;
    return { code: 1, error: `model pull ${entry.name}: ${error.message}: ${remedies[error.failure](`${path}.part`)}` };
  }
}

/** The catalogue, each model's state in this DATA_DIR, and where they are kept. */
async function list(context: ModelCommandContext): Promise<ModelCommandResult> {
  const dataDir = readSetting(serverSettings, context.env, "DATA_DIR");
  const rows = [["NAME", "SIZE_MB", "STATE"]];
  for (const entry of context.catalogue) {
    const path = whisperModelFile(entry, dataDir);
    const [size, part] = [await sizeOf(path), await sizeOf(`${path}.part`)];
    const state =
      size === entry.size
        ? "downloaded"
        : size !== null
          ? `wrong size (${size} bytes): pull it again`
          : part !== null
            ? `partial (${Math.floor((part / entry.size) * 100)}%): pull resumes it`
            : "-";
    rows.push([entry.name, (entry.size / 1_000_000).toFixed(0), state]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const table = rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
  return { code: 0, lines: [...table, "", `models folder: ${whisperModelsFolder(dataDir)}`, "fetch one: bun run admin model pull <name>"] };
}

/**
 * Runs a model command without opening any store (a model can be fetched before the service ever started). Reads
 * only DATA_DIR and WHISPER_MODEL_BASE_URL; a malformed one throws ConfigError (exit 2).
 */
export async function runModelCommand(command: ModelCommand, given: Partial<ModelCommandContext> = {}): Promise<ModelCommandResult> {
  const context = { ...defaults(), ...given };
  if (command.type === "model-list") return list(context);
  const entry = whisperModelNamed(command.name, context.catalogue);
  if (!entry) return { code: 1, error: `model pull: no model named "${command.name}" (${context.catalogue.map((m) => m.name).join(", ")})` };
  return pull(entry, context);
}
