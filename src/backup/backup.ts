import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, rename, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { addHeldFiles, copyBlobFiles } from "./blob-files.ts";
import { holdDeletes } from "../blobs/filesystem-hold.ts";
import { dataFiles, isEmptyDirectory } from "./data-dir.ts";
import { sealDataKeysCopy, sealLogCopy, sealReadModelsCopy } from "./database-copy.ts";
import { BackupRefused, describeFile, writeManifest, type BackupManifest } from "./manifest.ts";
import { backupDatabase, onlineBackupLibraryVersion } from "./sqlite-online-backup.ts";

/** Where a backup is written until it is whole; what is left there after a crash is plainly not a backup. */
const partialName = ".backup-partial";

/**
 * A consistent backup of the embedded profile's `dataDir` into `target` (missing or empty), taken while
 * the service runs and writes. Order is what makes the three parts agree:
 *  1. the read models (with their checkpoints), so they are at or behind the log copied next, and the
 *     restored service's projections just catch up;
 *  2. the log, the source of truth;
 *  3. the data keys (src/erasure/): every key an event of the copied log was encrypted with was made before it;
 *  4. the blobs: every object an event of the copied log names was written before that event, so it is in;
 *     one deleted since (its task deleted after the log was copied) the store kept aside for the backup from
 *     before the log was copied (src/blobs/filesystem-hold.ts), and it is added from there.
 * Each database is one snapshot of one commit (SQLite's online backup API).
 */
export async function takeBackup(dataDir: string, target: string): Promise<BackupManifest> {
  const source = (name: string) => join(dataDir, name);
  if (!existsSync(source(dataFiles.events))) throw new BackupRefused(`${dataDir} holds no ${dataFiles.events}: nothing to back up`);
  if (!(await isEmptyDirectory(target))) throw new BackupRefused(`${target} is not empty: a backup goes into a new or empty directory`);
  const library = onlineBackupLibraryVersion();

  const startedAt = new Date().toISOString();
  // Password hashes, tokens' hashes and the signing secret are in it: for the operator only.
  await mkdir(target, { recursive: true, mode: 0o700 });
  await chmod(target, 0o700);
  const partial = join(target, partialName);
  await mkdir(partial, { mode: 0o700 });
  const copy = (name: string) => join(partial, name);

  const names: string[] = [];
  if (existsSync(source(dataFiles.readModels))) {
    await backupDatabase(source(dataFiles.readModels), copy(dataFiles.readModels));
    sealReadModelsCopy(copy(dataFiles.readModels));
    names.push(dataFiles.readModels);
  }
  const hold = await holdDeletes(source(dataFiles.blobs));
  let events: BackupManifest["events"];
  let blobs: BackupManifest["blobs"];
  try {
    await backupDatabase(source(dataFiles.events), copy(dataFiles.events));
    events = sealLogCopy(copy(dataFiles.events));
    names.push(dataFiles.events);
    if (existsSync(source(dataFiles.dataKeys))) {
      await mkdir(dirname(copy(dataFiles.dataKeys)), { mode: 0o700 });
      await backupDatabase(source(dataFiles.dataKeys), copy(dataFiles.dataKeys));
      sealDataKeysCopy(copy(dataFiles.dataKeys));
      await chmod(copy(dataFiles.dataKeys), 0o600);
      names.push(dataFiles.dataKeys);
    }
    blobs = await copyBlobFiles(source(dataFiles.blobs), copy(dataFiles.blobs), { mayLink: true });
    await addHeldFiles(await hold.end(), copy(dataFiles.blobs), blobs);
  } finally {
    await hold.release();
  }
  if (existsSync(source(dataFiles.signingSecret))) {
    await copyFile(source(dataFiles.signingSecret), copy(dataFiles.signingSecret));
    await chmod(copy(dataFiles.signingSecret), 0o600);
    names.push(dataFiles.signingSecret);
  }

  const files: BackupManifest["files"] = {};
  for (const name of names) files[name] = await describeFile(copy(name));
  for (const name of [...names, dataFiles.blobs]) {
    await mkdir(dirname(join(target, name)), { recursive: true, mode: 0o700 });
    await rename(copy(name), join(target, name));
  }
  if (names.includes(dataFiles.dataKeys)) await rmdir(dirname(copy(dataFiles.dataKeys)));
  await rmdir(partial);
  const manifest: BackupManifest = {
    format: "scribe-backup",
    version: 1,
    startedAt,
    finishedAt: new Date().toISOString(),
    sqlite: library,
    events,
    files,
    blobs,
  };
  await writeManifest(target, manifest);
  return manifest;
}
