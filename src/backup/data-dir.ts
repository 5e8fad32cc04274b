import { readdir } from "node:fs/promises";
import { BackupRefused } from "./manifest.ts";
import { dataKeysFile } from "../erasure/sqlite-data-keys.ts";

/** What the embedded profile keeps under DATA_DIR (src/adapters.ts), by name; a backup holds these. */
export const dataFiles = {
  events: "events.sqlite",
  readModels: "readmodels.sqlite",
  blobs: "blobs",
  signingSecret: "signing-secret",
  /** The data keys (src/erasure/sqlite-data-keys.ts), in a folder of their own: a restore keeps its ledger of erasures. */
  dataKeys: dataKeysFile,
} as const;

/** The settings that put a port on a server of its own (src/config.ts), whose data these commands cannot reach. */
export type Profile = { eventStoreUrl: string | null; mongodbUrl: string | null; s3: object | null };

/** Backup and restore are the embedded profile's; a cluster's servers have their own tools (docs/operations.md, "Backup and restore"). */
export function refuseClusterProfile(profile: Profile, action: "back up" | "restore"): void {
  const servers = [
    profile.eventStoreUrl && "EVENTSTORE_URL (EventStoreDB)",
    profile.mongodbUrl && "MONGODB_URL (MongoDB)",
    profile.s3 && "S3_ENDPOINT (S3)",
  ].filter((name): name is string => typeof name === "string");
  if (servers.length === 0) return;
  throw new BackupRefused(
    `cannot ${action} the cluster profile (${servers.join(", ")} set): this command handles the embedded profile's DATA_DIR only; ` +
      "use the servers' own tools (EventStoreDB's file-copy backup, mongodump, mc mirror), as docs/operations.md's \"Backup and restore\" says",
  );
}

/**
 * Whether `dir` is missing or holds nothing. `lost+found`, which the root of an ext filesystem always
 * holds, does not count: a disk mounted for the data or the backups is empty with it; nor do the names in `allowed`.
 */
export async function isEmptyDirectory(dir: string, allowed: readonly string[] = []): Promise<boolean> {
  try {
    return (await readdir(dir)).every((name) => name === "lost+found" || allowed.includes(name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return true;
    if (code === "ENOTDIR") return false;
    throw error;
  }
}
