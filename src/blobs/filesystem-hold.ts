import { copyFile, link, mkdir, mkdtemp, readFile, readdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isNotFound } from "./file-io.ts";

/*
 * Deletes held for a backup of the embedded store (src/backup). A backup copies the log and then the blobs, so an
 * object deleted in between (its task deleted meanwhile, which deletes its transcripts and media) would be missing
 * from a backup whose log still names it, and the restored task could not be read. While `~backup-hold/~until`
 * names a time to come, the store links each object it deletes (and its sidecar) into `~backup-hold` before
 * removing it; the backup adds those to its copy, then removes them. The backup pushes the time on while it runs,
 * so one that dies stops holding within minutes and the next delete clears what it held: deleting still deletes.
 *
 * Held files are flat, the key's `/` written `~` and a sidecar's name ending `~~meta` (no key holds a `~`), so holding
 * never creates a folder: a delete racing the end of a backup finds no `~backup-hold` and leaves nothing behind.
 */
export const holdFolder = "~backup-hold";
const untilFile = "~until";
/** How far ahead a running backup keeps the time, and how often it pushes it on. */
const holdMs = 5 * 60_000;
const renewMs = 60_000;

const sidecarMark = "~~meta";

const isExisting = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === "EEXIST";

/** The store's half: called with an object's path before its files are removed. */
export async function keepForBackup(root: string, key: string, path: string): Promise<void> {
  const hold = join(root, holdFolder);
  let until: number;
  try {
    until = Number(await readFile(join(hold, untilFile), "utf8"));
  } catch (error) {
    if (isNotFound(error)) return; // no backup running: the common case, one failed open
    throw error;
  }
  if (!(until > Date.now())) {
    await rm(hold, { recursive: true, force: true }); // its backup died
    return;
  }
  const held = join(hold, key.replaceAll("/", "~"));
  const files: [from: string, to: string][] = [
    [path, held],
    [`${path}~meta.json`, `${held}${sidecarMark}`],
  ];
  for (const [from, to] of files) {
    try {
      await link(from, to);
    } catch (error) {
      if (isNotFound(error) || isExisting(error)) continue; // no such file, or the backup ended meanwhile
      await copyFile(from, to).catch((failed: unknown) => {
        if (!isNotFound(failed)) throw failed; // a filesystem without hard links
      });
    }
  }
}

/** A file held, and its path in the store (`<key>`, or its sidecar's `<key>~meta.json`). */
export type HeldFile = { path: string; name: string };

function heldFile(folder: string, name: string): HeldFile {
  const sidecar = name.endsWith(sidecarMark);
  const key = (sidecar ? name.slice(0, -sidecarMark.length) : name).replaceAll("~", "/");
  return { path: join(folder, name), name: sidecar ? `${key}~meta.json` : key };
}

export type DeleteHold = {
  /** Stops holding and lists what was held, to be copied before `release`. */
  end(): Promise<HeldFile[]>;
  /** Stops holding, if not ended yet, and removes what was held. */
  release(): Promise<void>;
};

/** The backup's half: from now until `end`, the store at `root` keeps what it deletes. */
export async function holdDeletes(root: string): Promise<DeleteHold> {
  const hold = join(root, holdFolder);
  await mkdir(root, { recursive: true });
  await rm(hold, { recursive: true, force: true }); // left by a backup that died
  // Made whole aside and renamed into place, so the store never sees the folder without its time.
  const making = await mkdtemp(join(root, `${holdFolder}-making~`));
  await writeFile(join(making, untilFile), String(Date.now() + holdMs));
  await rename(making, hold);
  const renew = () => writeFile(join(hold, untilFile), String(Date.now() + holdMs)).catch(() => undefined);
  const timer = setInterval(renew, renewMs);
  let ended: string | null = null;
  return {
    async end() {
      clearInterval(timer);
      ended = await mkdtemp(join(root, `${holdFolder}-ended~`));
      const held = join(ended, "held");
      try {
        await rename(hold, held);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        return []; // cleared by a store that took it for a dead backup's: nothing held
      }
      return (await readdir(held)).filter((name) => name !== untilFile).map((name) => heldFile(held, name));
    },
    async release() {
      clearInterval(timer);
      await rm(ended ?? hold, { recursive: true, force: true });
    },
  };
}
