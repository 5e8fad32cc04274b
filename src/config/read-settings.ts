import type { Setting, SettingsSchema, ValuesOf } from "./setting.ts";

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

/** What reading `S` from an environment found: every value, where each came from, and every problem. */
export type SettingsReadOf<S extends SettingsSchema> = { values: ValuesOf<S>; sources: Record<keyof S & string, SettingSource>; problems: string[] };

/** A set variable's text (trimmed; blank counts as unset). */
const rawOf = (env: Env, name: string): string | null => env[name]?.trim() || null;

function parseOne(env: Env, name: string, setting: Setting<unknown>): { value: unknown; source: SettingSource; problem: string | null } {
  const raw = rawOf(env, name);
  if (raw === null) return { value: setting.fallback, source: "default", problem: null };
  const parsed = setting.parse(raw);
  if ("value" in parsed) return { value: parsed.value, source: "environment", problem: null };
  // A secret's text is never echoed, not even a malformed one: it may be the real secret set in the wrong place.
  return { value: setting.fallback, source: "default", problem: `${name} ${parsed.broken}, got ${setting.secret ? "a secret" : JSON.stringify(raw)}` };
}

/**
 * Reads every setting of `schema` from `env` and finds every malformed value at once (a broken value takes its
 * fallback so that reading goes on). Unknown names are the whole schema's to judge (src/settings-schema.ts).
 */
export function readSettingsOf<S extends SettingsSchema>(schema: S, env: Env): SettingsReadOf<S> {
  const values: Record<string, unknown> = {};
  const sources: Record<string, SettingSource> = {};
  const problems: string[] = [];
  for (const [name, setting] of Object.entries(schema)) {
    const { value, source, problem } = parseOne(env, name, setting);
    values[name] = value;
    sources[name] = source;
    if (problem) problems.push(problem);
  }
  return { values: values as ValuesOf<S>, sources: sources as Record<keyof S & string, SettingSource>, problems };
}

/**
 * One setting of `schema` (a capability's own), for code that reads it where no Config reaches (a rendering thread):
 * the same rule, the same fallback. Start-up has already refused a malformed value, so the throw is for tests and tools.
 */
export function readSetting<S extends SettingsSchema, K extends keyof S & string>(schema: S, env: Env, name: K): ValuesOf<S>[K] {
  const { value, problem } = parseOne(env, name, schema[name]!);
  if (problem) throw new ConfigError(problem);
  return value as ValuesOf<S>[K];
}
