import { capabilities } from "./capabilities/index.ts";
import { type Env, readSettingsOf, type SettingsReadOf } from "./config/read-settings.ts";
import { type coreSchema, coreSchemaParts, schemaOf } from "./config/schema.ts";
import type { Setting, SettingsSchema, ValuesOf } from "./config/setting.ts";
import { unknownSettings } from "./config/unknown-settings.ts";

/** `A | B` as `A & B`: the capabilities' settings, one object type in which each name keeps its own type. */
type UnionToIntersection<U> = (U extends unknown ? (part: U) => void : never) extends (whole: infer I) => void ? I : never;

type CapabilitySettings = UnionToIntersection<NonNullable<(typeof capabilities)[number]["settings"]>>;

/** The type of the whole schema: the core's settings and every capability's. */
export type Schema = typeof coreSchema & CapabilitySettings;

/**
 * The parts of the schema (a test checks that no name is in two): each capability's own, from its manifest, then the
 * core's. Within a section of the reference a capability's settings come first, then the core's that concern it
 * (OPENAI_COMPAT_FILE_LIMIT_BYTES, a request limit, after the OpenAI-compatible endpoint's own).
 */
export const schemaParts: readonly SettingsSchema[] = [...capabilities.flatMap((capability) => capability.settings ?? []), ...coreSchemaParts];

/**
 * Every environment variable Scribe reads, the one list: the configuration is parsed through it,
 * `bun run admin config` prints it and docs/operations.md's table is generated from it.
 */
export const schema = schemaOf(schemaParts) as Schema;

export type SettingName = keyof Schema & string;
/** Each setting's value once read: its parsed text, or its fallback. */
export type Settings = ValuesOf<Schema>;
export type SettingsRead = SettingsReadOf<Schema>;

export const settingNames = Object.keys(schema) as SettingName[];

export const isSettingName = (name: string): name is SettingName => Object.hasOwn(schema, name);

export const settingOf = (name: SettingName): Setting<unknown> => schema[name] as Setting<unknown>;

/**
 * Reads every setting from `env` and finds every problem at once: malformed values (each then takes its
 * fallback, so that reading goes on), then unknown names meant for Scribe.
 */
export function readSettings(env: Env): SettingsRead {
  const read = readSettingsOf(schema, env);
  return { ...read, problems: [...read.problems, ...unknownSettings(env, settingNames)] };
}
