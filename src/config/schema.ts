import type { Setting } from "./setting.ts";
import { accountSettings } from "./settings/accounts.ts";
import { limitSettings } from "./settings/limits.ts";
import { exportSettings, mediaFetchSettings } from "./settings/media.ts";
import { openAiCompatSettings } from "./settings/openai-compat.ts";
import { observabilitySettings, testSettings } from "./settings/observability.ts";
import { serverSettings } from "./settings/server.ts";
import { storageSettings } from "./settings/storage.ts";
import { summarySettings, transcriptionSettings } from "./settings/transcription.ts";
import { webhookSettings } from "./settings/webhooks.ts";

/** The parts of the schema, one per concern (a test checks that no name is in two). */
export const schemaParts = [
  serverSettings,
  storageSettings,
  limitSettings,
  accountSettings,
  transcriptionSettings,
  summarySettings,
  openAiCompatSettings,
  mediaFetchSettings,
  exportSettings,
  webhookSettings,
  observabilitySettings,
  testSettings,
] as const;

/**
 * Every environment variable Scribe reads, the one list: the configuration is parsed through it,
 * `bun run admin config` prints it and docs/operations.md's table is generated from it.
 */
export const schema = {
  ...serverSettings,
  ...storageSettings,
  ...limitSettings,
  ...accountSettings,
  ...transcriptionSettings,
  ...summarySettings,
  ...openAiCompatSettings,
  ...mediaFetchSettings,
  ...exportSettings,
  ...webhookSettings,
  ...observabilitySettings,
  ...testSettings,
};

export type SettingName = keyof typeof schema;
/** Each setting's value once read: its parsed text, or its fallback. */
export type Settings = { [K in SettingName]: (typeof schema)[K] extends Setting<infer T> ? T : never };

export const settingNames = Object.keys(schema) as SettingName[];

export const isSettingName = (name: string): name is SettingName => Object.hasOwn(schema, name);

export const settingOf = (name: SettingName): Setting<unknown> => schema[name] as Setting<unknown>;
