import { resolve } from "node:path";
import type { Config } from "../config.ts";
import { takeBackup } from "../backup/backup.ts";
import { restoreBackup } from "../backup/restore.ts";
import { refuseClusterProfile } from "../backup/data-dir.ts";
import { compensateErasures } from "./restore-compensation-process.ts";
import type { BackupManifest } from "../backup/manifest.ts";

export type BackupCommand = { type: "backup"; dir: string } | { type: "restore"; dir: string; erasuresFrom?: string };

/** Printed (stderr) when a restore found no ledger of erasures to re-apply: it cannot know what was erased since. */
export const noLedgerWarning = [
  "WARNING: no ledger of erasures was found (DATA_DIR had no keys/data-keys.sqlite and no --erasures-from was given).",
  "WARNING: tasks deleted and accounts erased after this backup was taken may have come back, with their data.",
  "WARNING: restore again with --erasures-from <a newer backup, or the lost DATA_DIR's keys/data-keys.sqlite> if one exists.",
];

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function contents(manifest: BackupManifest): string[] {
  const files = Object.entries(manifest.files).map(([name, file]) => `${name} ${size(file.bytes)}`);
  return [
    `  events: ${manifest.events.count}, log position ${manifest.events.lastPosition}`,
    `  files: ${files.join(", ")}`,
    `  blobs: ${manifest.blobs.files} files, ${size(manifest.blobs.bytes)}`,
  ];
}

/**
 * `admin backup <dir>` and `admin restore <dir>`: on DATA_DIR's files directly, so without the read-model
 * catch-up the other commands start with (a restore has no DATA_DIR yet). Throws BackupRefused (exit 1).
 */
export async function runBackupCommand(command: BackupCommand, config: Config): Promise<string[]> {
  const started = performance.now();
  const dir = resolve(command.dir);
  const seconds = () => `  took ${((performance.now() - started) / 1000).toFixed(2)} s`;
  if (command.type === "backup") {
    refuseClusterProfile(config, "back up");
    const manifest = await takeBackup(config.dataDir, dir);
    return [`backed up ${config.dataDir} into ${dir}`, ...contents(manifest), seconds()];
  }
  refuseClusterProfile(config, "restore");
  const erasuresFrom = command.erasuresFrom === undefined ? undefined : resolve(command.erasuresFrom);
  const { manifest, erasures } = await restoreBackup(dir, config.dataDir, { erasuresFrom, compensate: compensateErasures(config) });
  if (!erasures.ledgerFound) for (const line of noLedgerWarning) console.error(line);
  const done = erasures.compensation;
  const recorded = `${erasures.recorded} recorded${erasuresFrom ? ` (with ${erasuresFrom}'s)` : ""}`;
  const compensated = done && [
    `  ${done.tasksDeleted} tasks deleted and ${done.accountsErased} accounts erased again, ${done.blobsRemoved} blob folders removed`,
    done.readModelsRebuilt ? ", read models rebuilt from the log" : "",
  ];
  return [
    `restored ${dir} (taken ${manifest.startedAt}) into ${config.dataDir}`,
    ...contents(manifest),
    `  erasures re-applied: ${recorded}, ${erasures.keysDestroyed} keys in the backup destroyed again`,
    ...(compensated ? [compensated.join("")] : []),
    seconds(),
  ];
}
