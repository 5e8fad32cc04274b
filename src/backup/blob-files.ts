/**
 * The embedded blob store's files (src/blobs/filesystem-layout.ts), copied for a backup or a restore.
 *
 * Objects (`<key>` and `<key>~meta.json`) never change once written: a put renames a new file over the
 * name and a delete unlinks it. So on one filesystem they are hard-linked (instant, no space), and the
 * link keeps the bytes whatever the store does to the name afterwards; across filesystems they are copied.
 * Multipart uploads in progress (`~uploads`) are written in place and always copied. Writes in progress
 * (`~tmp`) and the locks of parts being written are left out: they belong to requests of the old process.
 */
import { constants, existsSync } from "node:fs";
import { copyFile, link, mkdir, readdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { holdFolder, type HeldFile } from "../blobs/filesystem-hold.ts";

export type BlobCount = { files: number; bytes: number };

const UPLOADS = "~uploads";
const TEMP = "~tmp";
/** An upload being completed when the copy ran (`<uploadId>~completing-<random>`), copied back under its id. */
const completing = /^([0-9a-f]{32})~completing-[0-9a-f]+$/;

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === "ENOENT";
}

/** Gone since it was listed (a task deleted, an upload completed): nothing to copy, and no error. */
async function unlessGone<T>(work: () => Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

async function copyOne(from: string, to: string, mayLink: boolean, count: BlobCount): Promise<void> {
  const size = await unlessGone(async () => {
    const { size } = await stat(from);
    if (mayLink) {
      try {
        await link(from, to);
        return size;
      } catch (error) {
        // Another filesystem (EXDEV), or one without hard links: a copy, a reflink where it can.
        if (isNotFound(error)) throw error;
      }
    }
    await copyFile(from, to, constants.COPYFILE_FICLONE);
    return size;
  });
  if (size === null) return;
  count.files += 1;
  count.bytes += size;
}

async function copyTree(from: string, to: string, mayLink: boolean, count: BlobCount, skip: (name: string) => boolean): Promise<void> {
  const entries = await unlessGone(() => readdir(from, { withFileTypes: true }));
  if (entries === null) return;
  await mkdir(to, { recursive: true });
  for (const entry of entries) {
    if (skip(entry.name)) continue;
    if (entry.isDirectory()) await copyTree(join(from, entry.name), join(to, entry.name), mayLink, count, () => false);
    else if (entry.isFile()) await copyOne(join(from, entry.name), join(to, entry.name), mayLink, count);
  }
}

/**
 * One upload's folder. Its part markers are listed before `data` is copied: a marker appears only
 * once its bytes are in `data`, so every part the copy names is in the copied `data`.
 */
async function copyUpload(from: string, to: string, count: BlobCount): Promise<void> {
  const names = await unlessGone(() => readdir(from));
  if (names === null) return;
  await mkdir(to, { recursive: true });
  const kept = names.filter((name) => !name.endsWith(".lock") && !name.includes("~tmp-"));
  for (const name of [...kept.filter((n) => n !== "data"), ...kept.filter((n) => n === "data")]) await copyOne(join(from, name), join(to, name), false, count);
}

/**
 * Copies the blob store at `from` into `to`. Uploads in progress are copied first and objects after:
 * an upload completed meanwhile has its object in the copy, which is what completing it again finds.
 */
export async function copyBlobFiles(from: string, to: string, options: { mayLink: boolean }): Promise<BlobCount> {
  const count: BlobCount = { files: 0, bytes: 0 };
  await mkdir(join(to, UPLOADS), { recursive: true });
  await mkdir(join(to, TEMP), { recursive: true });
  for (const name of (await unlessGone(() => readdir(join(from, UPLOADS)))) ?? []) {
    const id = completing.exec(name)?.[1] ?? name;
    await copyUpload(join(from, UPLOADS, name), join(to, UPLOADS, id), count);
  }
  await copyTree(from, to, options.mayLink, count, (name) => name === UPLOADS || name === TEMP || name.startsWith(holdFolder));
  return count;
}

/**
 * Adds to a copy the objects the store deleted while it was made (src/blobs/filesystem-hold.ts): those it had
 * copied already are left as they are; the others were deleted before the copy reached them.
 */
export async function addHeldFiles(held: readonly HeldFile[], to: string, count: BlobCount): Promise<void> {
  for (const file of held) {
    const target = join(to, file.name);
    if (existsSync(target)) continue;
    await mkdir(dirname(target), { recursive: true });
    await copyOne(file.path, target, true, count);
  }
}

/** The files and bytes a copy of `root` holds, to check a backup against its manifest. */
export async function countBlobFiles(root: string): Promise<BlobCount> {
  const count: BlobCount = { files: 0, bytes: 0 };
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await unlessGone(() => readdir(dir, { withFileTypes: true }))) ?? []) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        count.files += 1;
        count.bytes += (await stat(path)).size;
      }
    }
  };
  await walk(root);
  return count;
}
