import { statSync } from "node:fs";
import { ConfigError, loadConfig, type Config } from "../config.ts";
import type { Env } from "../config/read-settings.ts";
import { effectiveText, referenceJson, referenceMarkdown, referenceText } from "../config/reference.ts";
import { problemsOfNamedThings } from "../preflight.ts";
import { readSettings, schema } from "../settings-schema.ts";
import { whisperModelNamed } from "../transcription/whisper-models.ts";

/**
 * A WHISPER_MODEL that names a catalogue model must have its pinned size: a pull cut short and copied by hand, or another
 * file under its name, would otherwise load as something else or not at all. Only the size: hashing gigabytes on every
 * check would make it slow, and `admin model pull` verified the SHA-256 when it wrote the file.
 */
function pulledModelSizeProblem(config: Config, value: string | null): string | null {
  const { worker, whisper } = config.transcription;
  const entry = value === null ? null : whisperModelNamed(value);
  if (!entry || whisper.model === null || !worker || !config.roles.includes("workers")) return null;
  const size = statSync(whisper.model, { throwIfNoEntry: false })?.size;
  if (size === undefined || size === entry.size) return null;
  const remedy = `run \`bun run admin model pull ${entry.name}\` again`;
  return `WHISPER_MODEL ${entry.name} (${whisper.model}) is ${size} bytes where ${entry.name} has ${entry.size}: ${remedy}`;
}

/** `admin config`: the reference as a table, Markdown or JSON, or `--check` of the environment it runs in. */
export type ConfigCommand = { type: "config"; format: "text" | "markdown" | "json" | "check" };

/**
 * Prints the reference without opening a store or needing a server, so it works on a machine that has
 * nothing configured yet. `--check` validates `env` as start-up does, and then that every file, folder and
 * program the settings name is there: 0 and the values in effect, or 2 and every problem, one per line.
 */
export async function runConfigCommand(command: ConfigCommand, env: Env = process.env): Promise<{ code: number; stdout: string; stderr: string }> {
  switch (command.format) {
    case "text":
      return { code: 0, stdout: referenceText(schema), stderr: "" };
    case "markdown":
      return { code: 0, stdout: referenceMarkdown(schema), stderr: "" };
    case "json":
      return { code: 0, stdout: referenceJson(schema), stderr: "" };
    case "check": {
      const refuse = (problems: readonly string[]) => ({
        code: 2,
        stdout: "",
        stderr: problems.map((problem) => `admin: configuration: ${problem}\n`).join(""),
      });
      let config: Config;
      try {
        config = loadConfig(env);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return refuse(error.problems);
      }
      const read = readSettings(env);
      const named = await problemsOfNamedThings(config, read);
      // One line per file: a model already found missing or not ggml needs no size comparison.
      const sized = named.some((problem) => problem.startsWith("WHISPER_MODEL ")) ? null : pulledModelSizeProblem(config, read.values.WHISPER_MODEL);
      const missing = sized === null ? named : [...named, sized];
      return missing.length > 0 ? refuse(missing) : { code: 0, stdout: effectiveText(schema, read), stderr: "" };
    }
  }
}
