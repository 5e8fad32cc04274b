import { createReadStream } from "node:fs";
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { BlobCount } from "./blob-files.ts";

/**
 * `backup.json`, written last into a backup: a backup without it did not finish. It names what restore
 * checks before it copies anything (each file's size and SHA-256, the log's length, the blobs' count).
 */
export type BackupManifest = {
  format: "scribe-backup";
  version: 1;
  /** When the copy began and ended (ISO 8601). */
  startedAt: string;
  finishedAt: string;
  /** The SQLite library that took the online backups. */
  sqlite: string;
  /** The log as copied: its events and the position of the last (0 when empty). */
  events: { count: number; lastPosition: number };
  /** The database files and the signing secret, by their name in the backup. */
  files: Record<string, { bytes: number; sha256: string }>;
  /** Everything under `blobs/`. */
  blobs: BlobCount;
};

export const manifestName = "backup.json";
export const manifestVersion = 1;

/** Something the operator asked for that cannot be done safely: the CLI says why and exits 1. */
export class BackupRefused extends Error {}

export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export async function describeFile(path: string): Promise<{ bytes: number; sha256: string }> {
  return { bytes: (await stat(path)).size, sha256: await sha256OfFile(path) };
}

/** Through a temporary name and a rename, so the manifest is there whole or not at all. */
export async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  const temporary = join(dir, `.${manifestName}.partial`);
  await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temporary, join(dir, manifestName));
}

function isManifest(value: unknown): value is BackupManifest {
  const m = value as Partial<BackupManifest> | null;
  return (
    typeof m === "object" &&
    m !== null &&
    m.format === "scribe-backup" &&
    typeof m.events?.count === "number" &&
    typeof m.events.lastPosition === "number" &&
    typeof m.files === "object" &&
    m.files !== null &&
    typeof m.blobs?.files === "number" &&
    typeof m.blobs.bytes === "number"
  );
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, manifestName), "utf8");
  } catch {
    throw new BackupRefused(`${dir} is not a complete backup: it has no ${manifestName} (a backup that did not finish has none)`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BackupRefused(`${join(dir, manifestName)} is not valid JSON`);
  }
  if (!isManifest(parsed)) throw new BackupRefused(`${join(dir, manifestName)} is not a Scribe backup manifest`);
  if (parsed.version !== manifestVersion)
    throw new BackupRefused(`${dir}: backup format version ${String(parsed.version)}, this release reads ${manifestVersion}`);
  return parsed;
}
