import { groups, type SettingsSchema } from "./setting.ts";
import { limitSettings } from "./settings/limits.ts";
import { observabilitySettings, testSettings } from "./settings/observability.ts";
import { serverSettings } from "./settings/server.ts";
import { storageSettings } from "./settings/storage.ts";

/**
 * The core's parts of the schema: what every process reads whatever its capabilities. A capability's own settings are
 * in its folder (`settings.ts`, its manifest's `settings`); the whole schema is assembled by the composition root
 * (src/settings-schema.ts), since src/config imports nothing of the service.
 */
export const coreSchemaParts = [serverSettings, storageSettings, limitSettings, observabilitySettings, testSettings] as const;

/** The core's settings alone, for code below the capabilities that takes a default from one (the request limits). */
export const coreSchema = { ...serverSettings, ...storageSettings, ...limitSettings, ...observabilitySettings, ...testSettings };

/**
 * One schema of `parts`, in the reference's order: section by section in the order of `groups`, and within a section
 * in the order of `parts`. So a capability's settings take their place by the section they name, and a new one with
 * settings is still its folder and its line in the list of capabilities.
 */
export function schemaOf(parts: readonly SettingsSchema[]): SettingsSchema {
  const entries = parts.flatMap((part) => Object.entries(part));
  return Object.fromEntries(groups.flatMap((group) => entries.filter(([, setting]) => setting.group === group)));
}
