import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, rename, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { copyBlobFiles, countBlobFiles } from "./blob-files.ts";
import { dataFiles, isEmptyDirectory } from "./data-dir.ts";
import { checkDatabaseCopy } from "./database-copy.ts";
import { BackupRefused, describeFile, readManifest, type BackupManifest } from "./manifest.ts";
import { reapplyErasures, readErasureLedger, readErasureLedgerAt } from "../erasure/key-store-restore.ts";
import type { Erasure } from "../erasure/data-keys.ts";

/** Where a restore is assembled inside DATA_DIR (so on its filesystem, even when DATA_DIR is a mount point). */
const partialName = ".restore-partial";

/** Refuses a backup that is incomplete, altered or corrupt, before anything is copied. */
async function verify(backup: string, manifest: BackupManifest): Promise<void> {
  if (!manifest.files[dataFiles.events]) throw new BackupRefused(`${backup}: the manifest names no ${dataFiles.events}`);
  for (const [name, expected] of Object.entries(manifest.files)) {
    if (!Object.values(dataFiles).includes(name as never) || name === dataFiles.blobs)
      throw new BackupRefused(`${backup}: the manifest names an unknown file ${name}`);
    const path = join(backup, name);
    if (!existsSync(path)) throw new BackupRefused(`${backup} is incomplete: ${name} is missing`);
    const actual = await describeFile(path);
    if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256)
      throw new BackupRefused(`${backup} is corrupt: ${name} is not what the backup wrote (SHA-256 ${actual.sha256}, expected ${expected.sha256})`);
  }
  const log = checkDatabaseCopy(join(backup, dataFiles.events), "log");
  if (log?.count !== manifest.events.count || log.lastPosition !== manifest.events.lastPosition)
    throw new BackupRefused(`${backup} is corrupt: ${dataFiles.events} holds ${log?.count} events, the manifest says ${manifest.events.count}`);
  if (manifest.files[dataFiles.readModels]) checkDatabaseCopy(join(backup, dataFiles.readModels), "read models");
  if (manifest.files[dataFiles.dataKeys]) checkDatabaseCopy(join(backup, dataFiles.dataKeys), "data keys");
  const blobs = await countBlobFiles(join(backup, dataFiles.blobs));
  if (blobs.files !== manifest.blobs.files || blobs.bytes !== manifest.blobs.bytes)
    throw new BackupRefused(
      `${backup} is incomplete: ${dataFiles.blobs}/ holds ${blobs.files} files (${blobs.bytes} bytes), ` +
        `the manifest says ${manifest.blobs.files} (${manifest.blobs.bytes} bytes)`,
    );
}

/** The erasures DATA_DIR's key store records; refused when it cannot be read, since a restore would drop them. */
function erasureLedgerOf(dataDir: string): Erasure[] {
  const path = join(dataDir, dataFiles.dataKeys);
  try {
    return readErasureLedger(path);
  } catch (error) {
    throw new BackupRefused(
      `${path} cannot be read (${error instanceof Error ? error.message : String(error)}): a restore would lose the erasures it records; ` +
        "repair it, or move it aside if those erasures may be undone",
    );
  }
}

/** The erasures named by `--erasures-from` (a newer backup, a DATA_DIR or a key store file); refused when unreadable. */
function erasureLedgerAt(path: string): Erasure[] {
  try {
    return readErasureLedgerAt(path, dataFiles.dataKeys);
  } catch (error) {
    throw new BackupRefused(`--erasures-from ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** The restored copy, not yet in use, once its keys of erased scopes are destroyed again: what `compensate` works on. */
export type RestoredCopy = { dir: string; ledger: readonly Erasure[]; keysDestroyed: number };

/** What `compensate` did beyond the keys (src/cli/restore-compensation.ts). */
export type Compensation = { tasksDeleted: number; accountsErased: number; blobsRemoved: number; readModelsRebuilt: boolean };

/** The compensation of a copy no erasure touches. */
export const noCompensation: Compensation = { tasksDeleted: 0, accountsErased: 0, blobsRemoved: 0, readModelsRebuilt: false };

export type RestoreOptions = {
  /** More erasures to re-apply, from a newer backup or key store (the usual case: DATA_DIR was lost with its ledger). */
  erasuresFrom?: string;
  /** Applies the erasures to the rest of the copy: facts, blobs, read models. */
  compensate?: (copy: RestoredCopy) => Promise<Compensation>;
};

/**
 * What a restore did: the backup's manifest, and the erasures it re-applied. `ledgerFound`: whether DATA_DIR had a
 * key store or `--erasures-from` named one; when not, erasures made since the backup may have come back.
 */
export type RestoreResult = {
  manifest: BackupManifest;
  erasures: { recorded: number; keysDestroyed: number; ledgerFound: boolean; compensation: Compensation | null };
};

/** The erasures of both ledgers, each scope once. */
function merged(...ledgers: Erasure[][]): Erasure[] {
  const byScope = new Map<string, Erasure>();
  for (const erasure of ledgers.flat()) if (!byScope.has(erasure.scope)) byScope.set(erasure.scope, erasure);
  return [...byScope.values()];
}

/** The one thing a DATA_DIR may hold when restored into: its key store, whose erasures the restore keeps. */
const keysFolder = dirname(dataFiles.dataKeys);

/**
 * Restores the backup at `backup` into `dataDir`, which must be missing or empty but for its key store (a
 * restore never merges into live data). The read models come back as they were copied (unless `compensate`
 * rebuilds them), behind or at the log: the service's projections catch them up when it starts, and its relay
 * hands the events after its checkpoint to the workers again, whose handlers check state first. The erasures recorded in `dataDir`'s
 * key store (and in `options.erasuresFrom`'s) are applied to the backup's keys, then by `options.compensate` to the
 * rest of the copy (the log's facts, the blobs, the read models), so an erasure made after the backup stays made.
 */
export async function restoreBackup(backup: string, dataDir: string, options: RestoreOptions = {}): Promise<RestoreResult> {
  const manifest = await readManifest(backup);
  if (!(await isEmptyDirectory(dataDir, [keysFolder])))
    throw new BackupRefused(`DATA_DIR ${dataDir} is not empty: a restore goes into a new or empty DATA_DIR (only its ${keysFolder}/ may stay)`);
  await verify(backup, manifest);
  const ledgerFound = existsSync(join(dataDir, dataFiles.dataKeys)) || options.erasuresFrom !== undefined;
  const ledger = merged(erasureLedgerOf(dataDir), options.erasuresFrom === undefined ? [] : erasureLedgerAt(options.erasuresFrom));

  await mkdir(dataDir, { recursive: true });
  const partial = join(dataDir, partialName);
  await mkdir(partial, { mode: 0o700 });
  const copy = (name: string) => join(partial, name);
  await copyBlobFiles(join(backup, dataFiles.blobs), copy(dataFiles.blobs), { mayLink: true });
  for (const name of Object.keys(manifest.files)) {
    await mkdir(dirname(copy(name)), { recursive: true, mode: 0o700 });
    await copyFile(join(backup, name), copy(name));
  }
  if (manifest.files[dataFiles.signingSecret]) await chmod(copy(dataFiles.signingSecret), 0o600);
  let keysDestroyed = 0;
  let compensation: Compensation | null = null;
  if (manifest.files[dataFiles.dataKeys]) {
    await chmod(copy(dataFiles.dataKeys), 0o600);
    keysDestroyed = reapplyErasures(copy(dataFiles.dataKeys), ledger);
    compensation = (await options.compensate?.({ dir: partial, ledger, keysDestroyed })) ?? null;
  }
  // The log last: a DATA_DIR with an event log is one a service would start on. The backup's key store, its
  // erasures re-applied, replaces DATA_DIR's (kept as it is when the backup has none: one from before the key store).
  const names = new Set([...Object.keys(manifest.files), ...(existsSync(copy(dataFiles.readModels)) ? [dataFiles.readModels] : [])]);
  const order = [dataFiles.blobs, ...[...names].filter((n) => n !== dataFiles.events), dataFiles.events];
  for (const name of order) {
    await mkdir(dirname(join(dataDir, name)), { recursive: true, mode: 0o700 });
    await rename(copy(name), join(dataDir, name));
  }
  if (manifest.files[dataFiles.dataKeys]) await rmdir(dirname(copy(dataFiles.dataKeys)));
  await rmdir(partial);
  return { manifest, erasures: { recorded: ledger.length, keysDestroyed, ledgerFound, compensation } };
}
