import { ConfigError, loadConfig } from "../config.ts";
import type { Env } from "../config/read-settings.ts";
import { effectiveText, referenceJson, referenceMarkdown, referenceText } from "../config/reference.ts";
import { problemsOfNamedThings } from "../preflight.ts";
import { readSettings, schema } from "../settings-schema.ts";

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
      let config: ReturnType<typeof loadConfig>;
      try {
        config = loadConfig(env);
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return refuse(error.problems);
      }
      const read = readSettings(env);
      const missing = await problemsOfNamedThings(config, read);
      return missing.length > 0 ? refuse(missing) : { code: 0, stdout: effectiveText(schema, read), stderr: "" };
    }
  }
}
