import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { Config } from "./config.ts";
import type { SettingsRead } from "./settings-schema.ts";

/**
 * What `admin config --check` looks at beyond the values' form: every file, folder and program a setting names,
 * for the roles this environment runs. A value can be well formed and still name nothing (a model path with a
 * typo, a font that was never installed), and the service would only find out on the first task that needs it.
 * Each problem names the setting and says what to do.
 */
export async function problemsOfNamedThings(config: Config, read: SettingsRead): Promise<string[]> {
  const s = read.values;
  const setByOperator = (name: keyof typeof read.sources) => read.sources[name] === "environment";
  const problems: string[] = [];
  const say = (problem: string | null) => problem && problems.push(problem);

  const dataDir = kindOf(config.dataDir);
  if (dataDir !== "missing" && dataDir !== "directory") problems.push(`DATA_DIR ${config.dataDir} is not a folder`);

  if (config.roles.includes("workers")) {
    say(program("YT_DLP_PATH", s.YT_DLP_PATH, "install yt-dlp (scripts/setup.sh does) for video links"));
    say(file("EXPORT_FONT", s.EXPORT_FONT, "install fonts-wqy-microhei (scripts/setup.sh does) or name another TTF, OTF or TTC"));
    if (setByOperator("EXPORT_FALLBACK_FONT")) say(file("EXPORT_FALLBACK_FONT", s.EXPORT_FALLBACK_FONT, "name a TTF, OTF or TTC, or unset it"));
    if (config.transcription.worker) problems.push(...(await transcriptionProblems(config)));
  }
  if (s.WHISPER_TEST_MODEL !== null) say(whisperModel("WHISPER_TEST_MODEL", s.WHISPER_TEST_MODEL));
  return problems;
}

async function transcriptionProblems(config: Config): Promise<string[]> {
  const { engine, sphinx, whisper, tempDir } = config.transcription;
  const problems: (string | null)[] = [
    Bun.which("ffmpeg") && Bun.which("ffprobe") ? null : "ffmpeg and ffprobe are not on PATH: install ffmpeg (scripts/setup.sh does)",
  ];
  if (tempDir !== null && kindOf(tempDir) !== "directory") problems.push(`TRANSCRIPTION_TMPDIR ${tempDir} is not an existing folder`);
  if (engine === "sphinx") {
    const install = "install pocketsphinx and pocketsphinx-en-us (scripts/setup.sh does)";
    problems.push(
      program("SPHINX_BINARY", sphinx.binary, install),
      kindOf(sphinx.hmm) === "directory" ? null : `SPHINX_HMM ${sphinx.hmm} is not a folder: ${install}`,
      file("SPHINX_LM", sphinx.lm, install),
      file("SPHINX_DICT", sphinx.dict, install),
    );
  }
  // Beside another default, a model that is not there is not offered (recognition-offer.ts): said here, not found by a task.
  if (whisper.model !== null) {
    problems.push(whisperModel("WHISPER_MODEL", whisper.model));
    try {
      await import("@fugood/whisper.node");
    } catch (error) {
      problems.push(`the whisper engine cannot start: @fugood/whisper.node does not load here (${(error as Error).message})`);
    }
  }
  return problems.filter((problem): problem is string => problem !== null);
}

type Kind = "missing" | "file" | "directory" | "other";

function kindOf(path: string): Kind {
  try {
    const stat = statSync(path);
    return stat.isFile() ? "file" : stat.isDirectory() ? "directory" : "other";
  } catch {
    return "missing";
  }
}

function file(name: string, path: string, remedy: string): string | null {
  const kind = kindOf(path);
  if (kind === "file") return null;
  return `${name} ${path} ${kind === "missing" ? "does not exist" : "is not a file"}: ${remedy}`;
}

function program(name: string, command: string, remedy: string): string | null {
  return Bun.which(command) ? null : `${name} ${command} is not a program on PATH: ${remedy}`;
}

/** whisper.cpp's ggml files begin with the magic 0x67676d6c, written little-endian ("lmgg"); GGUF files with "GGUF". */
const modelMagics = ["lmgg", "GGUF"];
const modelsUrl = "https://huggingface.co/ggerganov/whisper.cpp";

function whisperModel(name: string, path: string): string | null {
  const problem = file(
    name,
    path,
    `download a ggml model: \`bun run admin model pull base.en\` (\`model list\` names the others), or a file from ${modelsUrl}`,
  );
  if (problem) return problem;
  const head = Buffer.alloc(4);
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    readSync(fd, head, 0, 4, 0);
  } catch (error) {
    return `${name} ${path} cannot be read: ${(error as Error).message}`;
  } finally {
    if (fd !== null) closeSync(fd);
  }
  return modelMagics.includes(head.toString("latin1")) ? null : `${name} ${path} is not a whisper.cpp ggml model (it does not begin with ggml's magic)`;
}
