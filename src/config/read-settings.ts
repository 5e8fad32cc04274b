import { type SettingName, type Settings, settingNames, settingOf } from "./schema.ts";
import { unknownSettings } from "./unknown-settings.ts";

export type Env = Record<string, string | undefined>;

/** The environment breaks the schema: one line per problem, each naming the variable and the rule. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: string | readonly string[]) {
    const list = typeof problems === "string" ? [problems] : problems;
    super(list.join("\n"));
    this.problems = list;
  }
}

/** Where a setting's value came from, for `admin config --check`. */
export type SettingSource = "environment" | "default";

export type SettingsRead = { values: Settings; sources: Record<SettingName, SettingSource>; problems: string[] };

/** A set variable's text (trimmed; blank counts as unset). */
const rawOf = (env: Env, name: string): string | null => env[name]?.trim() || null;

function parseOne(env: Env, name: SettingName): { value: unknown; source: SettingSource; problem: string | null } {
  const setting = settingOf(name);
  const raw = rawOf(env, name);
  if (raw === null) return { value: setting.fallback, source: "default", problem: null };
  const parsed = setting.parse(raw);
  if ("value" in parsed) return { value: parsed.value, source: "environment", problem: null };
  // A secret's text is never echoed, not even a malformed one: it may be the real secret set in the wrong place.
  return { value: setting.fallback, source: "default", problem: `${name} ${parsed.broken}, got ${setting.secret ? "a secret" : JSON.stringify(raw)}` };
}

/**
 * Reads every setting of the schema from `env` and finds every problem at once (a broken value takes
 * its fallback so that reading goes on): malformed values, then unknown names meant for Scribe.
 */
export function readSettings(env: Env): SettingsRead {
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  const problems: string[] = [];
  for (const name of settingNames) {
    const { value, source, problem } = parseOne(env, name);
    values[name] = value;
    sources[name] = source;
    if (problem) problems.push(problem);
  }
  problems.push(...unknownSettings(env, settingNames));
  return { values: values as Settings, sources: sources as Record<SettingName, SettingSource>, problems };
}

/**
 * One setting, for code that reads it where no Config reaches (a rendering thread): the same rule, the
 * same fallback. Start-up has already refused a malformed value, so the throw is for tests and tools.
 */
export function readSetting<K extends SettingName>(env: Env, name: K): Settings[K] {
  const { value, problem } = parseOne(env, name);
  if (problem) throw new ConfigError(problem);
  return value as Settings[K];
}
