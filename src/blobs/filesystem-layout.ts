import { randomBytes } from "node:crypto";
import { mkdir, readFile, readdir, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isNotFound } from "./file-io.ts";
import { NoSuchUploadError, isValidBlobKey, type UploadedPart } from "./port.ts";

/*
 * Where the embedded blob store keeps things under `root`. Every name of ours contains "~", which no blob
 * key may contain (isValidBlobKey), so no key can reach or shadow them:
 *   <key>                          the object's bytes
 *   <key>~meta.json                { contentType }
 *   ~tmp/<random>                  writes in progress (same filesystem, so the final rename is atomic)
 *   ~uploads/<uploadId>/upload.json          { key, contentType, createdAt, partSize? }
 *   ~uploads/<uploadId>/<partNumber>-<md5>   a received part; the md5 in the name is its ETag, so
 *                                            a part and its ETag appear together in one rename
 *   ~backup-hold/                  objects deleted while a backup runs, kept for it (filesystem-hold.ts)
 * Limitation: like any filesystem (unlike S3), a key cannot be both an object and a "folder" of
 * another key ("a" and "a/b"); the second put fails.
 */
export const uploadIdPattern = /^[0-9a-f]{32}$/;
export const partFilePattern = /^([1-9][0-9]{0,4})-([0-9a-f]{32})$/;
const defaultContentType = "application/octet-stream";

/** `partSize`: the upload was created with that hint, so its parts are written in place (filesystem-parts.ts). */
export type UploadMeta = { key: string; contentType: string; createdAt: number; partSize?: number };

/** The paths, the atomic commit of an object, and the upload records every part of the embedded store shares. */
export class FileLayout {
  private ready: Promise<unknown> | undefined;

  constructor(readonly root: string) {}

  /** The key's path, after refusing anything that is not a valid key (so no traversal). */
  objectPath(key: string): string {
    if (!isValidBlobKey(key)) throw new TypeError(`invalid blob key: ${JSON.stringify(key)}`);
    return join(this.root, key);
  }

  uploadDir(uploadId: string): string {
    return join(this.root, "~uploads", uploadId);
  }

  get uploadsDir(): string {
    return join(this.root, "~uploads");
  }

  get tempDir(): string {
    return join(this.root, "~tmp");
  }

  async tempPath(): Promise<string> {
    await this.ensureDirs();
    return join(this.tempDir, randomBytes(12).toString("hex"));
  }

  ensureDirs(): Promise<unknown> {
    this.ready ??= Promise.all([mkdir(this.tempDir, { recursive: true }), mkdir(this.uploadsDir, { recursive: true })]).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  /** Makes the object visible: the sidecar first, then the bytes, each by an atomic rename. */
  async commit(tmp: string, path: string, contentType: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const metaTmp = await this.tempPath();
    await writeFile(metaTmp, JSON.stringify({ contentType }));
    await rename(metaTmp, `${path}~meta.json`);
    await rename(tmp, path);
  }

  async readContentType(path: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(`${path}~meta.json`, "utf8")) as { contentType?: unknown };
      return typeof meta.contentType === "string" ? meta.contentType : defaultContentType;
    } catch (error) {
      if (isNotFound(error)) return defaultContentType;
      throw error;
    }
  }

  /** The upload's record; NoSuchUploadError when it is unknown, finished, or for another key (as S3 answers). */
  async readUpload(key: string, uploadId: string): Promise<UploadMeta> {
    this.objectPath(key);
    if (!uploadIdPattern.test(uploadId)) throw new NoSuchUploadError(uploadId);
    let meta: UploadMeta;
    try {
      meta = JSON.parse(await readFile(join(this.uploadDir(uploadId), "upload.json"), "utf8")) as UploadMeta;
    } catch (error) {
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    if (meta.key !== key) throw new NoSuchUploadError(uploadId);
    return meta;
  }

  /** The parts in an upload's folder, the newest of each number when a re-sent part has not replaced the other yet. */
  async partsIn(dir: string): Promise<UploadedPart[]> {
    const byNumber = new Map<number, UploadedPart & { mtimeMs: number }>();
    for (const name of await readdir(dir)) {
      const match = partFilePattern.exec(name);
      if (!match) continue;
      const info = await stat(join(dir, name)).catch(() => null);
      if (!info) continue; // replaced between readdir and stat
      const partNumber = Number(match[1]);
      const seen = byNumber.get(partNumber);
      if (seen && seen.mtimeMs >= info.mtimeMs) continue;
      byNumber.set(partNumber, { partNumber, size: info.size, etag: `"${match[2]}"`, mtimeMs: info.mtimeMs });
    }
    return [...byNumber.values()].sort((a, b) => a.partNumber - b.partNumber).map(({ partNumber, size, etag }) => ({ partNumber, size, etag }));
  }
}
