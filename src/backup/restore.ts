import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, rename, rmdir } from "node:fs/promises";
import { join } from "node:path";
import { copyBlobFiles, countBlobFiles } from "./blob-files.ts";
import { dataFiles, isEmptyDirectory } from "./data-dir.ts";
import { checkDatabaseCopy } from "./database-copy.ts";
import { BackupRefused, describeFile, readManifest, type BackupManifest } from "./manifest.ts";

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
  const blobs = await countBlobFiles(join(backup, dataFiles.blobs));
  if (blobs.files !== manifest.blobs.files || blobs.bytes !== manifest.blobs.bytes)
    throw new BackupRefused(
      `${backup} is incomplete: ${dataFiles.blobs}/ holds ${blobs.files} files (${blobs.bytes} bytes), ` +
        `the manifest says ${manifest.blobs.files} (${manifest.blobs.bytes} bytes)`,
    );
}

/**
 * Restores the backup at `backup` into `dataDir`, which must be missing or empty (a restore never
 * merges into live data). The read models come back as they were copied, behind or at the log: the
 * service's projections catch them up when it starts, and its relay hands the events after its
 * checkpoint to the workers again, whose handlers check state first.
 */
export async function restoreBackup(backup: string, dataDir: string): Promise<BackupManifest> {
  const manifest = await readManifest(backup);
  if (!(await isEmptyDirectory(dataDir))) throw new BackupRefused(`DATA_DIR ${dataDir} is not empty: a restore goes into a new or empty DATA_DIR`);
  await verify(backup, manifest);

  await mkdir(dataDir, { recursive: true });
  const partial = join(dataDir, partialName);
  await mkdir(partial, { mode: 0o700 });
  const copy = (name: string) => join(partial, name);
  await copyBlobFiles(join(backup, dataFiles.blobs), copy(dataFiles.blobs), { mayLink: true });
  for (const name of Object.keys(manifest.files)) await copyFile(join(backup, name), copy(name));
  if (manifest.files[dataFiles.signingSecret]) await chmod(copy(dataFiles.signingSecret), 0o600);
  // The log last: a DATA_DIR with an event log is one a service would start on.
  const order = [dataFiles.blobs, ...Object.keys(manifest.files).filter((n) => n !== dataFiles.events), dataFiles.events];
  for (const name of order) await rename(copy(name), join(dataDir, name));
  await rmdir(partial);
  return manifest;
}
