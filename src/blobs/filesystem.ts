import { randomBytes } from "node:crypto";
import { constants as fsConstants } from "node:fs";
import { mkdir, open, readFile, readdir, rename, rm, stat, truncate, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { BodyTooLargeError, IncompleteBodyError, appendFile, handleStream, isNotFound, openForRead, writeAll, writeStream } from "./file-io.ts";
import { serveStorageRequest } from "./filesystem-http.ts";
import { PartBusyError } from "./file-io.ts";
export { PartBusyError };
import { canWriteAtOffset, writeBodyAt } from "./positioned-write.ts";
import { NoSuchUploadError, isValidBlobKey } from "./port.ts";
import type { BlobInfo, BlobRead, BlobStore, ByteRange, SignedRequest, UploadedPart } from "./port.ts";
import { expiresAt, signedQuery, verifySignedQuery, type SignedGrant } from "./signing.ts";

/*
 * Layout under `root`. Every name of ours contains "~", which no blob key may contain
 * (isValidBlobKey), so no key can reach or shadow them:
 *   <key>                          the object's bytes
 *   <key>~meta.json                { contentType }
 *   ~tmp/<random>                  writes in progress (same filesystem, so the final rename is atomic)
 *   ~uploads/<uploadId>/upload.json          { key, contentType, createdAt }
 *   ~uploads/<uploadId>/<partNumber>-<md5>   a received part; the md5 in the name is its ETag, so
 *                                            a part and its ETag appear together in one rename
 * Limitation: like any filesystem (unlike S3), a key cannot be both an object and a "folder" of
 * another key ("a" and "a/b"); the second put fails.
 */
const uploadIdPattern = /^[0-9a-f]{32}$/;
const partFilePattern = /^([1-9][0-9]{0,4})-([0-9a-f]{32})$/;
const defaultContentType = "application/octet-stream";

export class InvalidPartError extends Error {
  constructor(partNumber: number) {
    super(`part ${partNumber} is missing or its ETag does not match`);
    this.name = "InvalidPartError";
  }
}

/** `partSize`: the upload was created with that hint, so its parts are written in place (see writePart). */
type UploadMeta = { key: string; contentType: string; createdAt: number; partSize?: number };

/** A lock left by a crashed writer is broken after this long. */
const staleLockMs = 60 * 60_000;

export type FileBlobStoreOptions = {
  root: string;
  /** Base URL the API is reached at; signed URLs point at `${publicUrl}/storage/...`. */
  publicUrl: string;
  secret: string;
  /** Largest part a PUT may send, declared or not (S3's own limit, 5 GiB, by default). */
  maxPartBytes?: number;
};

export class FileBlobStore implements BlobStore {
  private readonly root: string;
  private readonly publicUrl: string;
  private readonly secret: string;
  readonly maxPartBytes: number;
  private ready: Promise<unknown> | undefined;

  constructor(options: FileBlobStoreOptions) {
    this.root = options.root;
    this.publicUrl = options.publicUrl.replace(/\/+$/, "");
    this.secret = options.secret;
    this.maxPartBytes = options.maxPartBytes ?? 5 * 1024 ** 3;
  }

  async put(key: string, body: Uint8Array | ReadableStream<Uint8Array> | Blob, options: { contentType: string }): Promise<BlobInfo> {
    const path = this.objectPath(key);
    const tmp = await this.tempPath();
    const out = await open(tmp, "wx");
    try {
      if (body instanceof Uint8Array) await writeAll(out, body);
      else await writeStream(out, body instanceof Blob ? body.stream() : body, Number.POSITIVE_INFINITY);
      await out.close();
      const { size } = await stat(tmp);
      await this.commit(tmp, path, options.contentType);
      return { size, contentType: options.contentType };
    } catch (error) {
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<BlobRead | null> {
    const path = this.objectPath(key);
    const opened = await openForRead(path);
    if (!opened) return null;
    const { handle, size } = opened;
    let start = 0;
    let end = size - 1;
    if (options.range) {
      if (options.range.start < 0 || options.range.end < options.range.start) {
        await handle.close();
        throw new RangeError(`invalid byte range ${options.range.start}-${options.range.end}`);
      }
      if (options.range.start >= size) {
        await handle.close();
        return null;
      }
      start = options.range.start;
      end = Math.min(options.range.end, size - 1);
    }
    const contentType = await this.readContentType(path);
    const read: BlobRead = { size, contentType, body: handleStream(handle, start, end) };
    if (options.range) read.range = { start, end };
    return read;
  }

  async head(key: string): Promise<BlobInfo | null> {
    const found = await this.locate(key);
    return found && { size: found.size, contentType: found.contentType };
  }

  /**
   * Where an object's bytes are, for the HTTP handler: Bun sends a file body with sendfile and a
   * correct Content-Length, which it does not do for a ReadableStream body (oven-sh/bun#10507).
   */
  async locate(key: string): Promise<(BlobInfo & { path: string }) | null> {
    const path = this.objectPath(key);
    try {
      const info = await stat(path);
      if (!info.isFile()) return null;
      return { path, size: info.size, contentType: await this.readContentType(path) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.objectPath(key);
    // A directory here holds other keys ("a" when "a/b" exists): there is no object "a" to delete.
    if ((await stat(path).catch(() => null))?.isDirectory()) return;
    await rm(path, { force: true });
    await rm(`${path}~meta.json`, { force: true });
  }

  async signGet(key: string, options: { expiresInSeconds: number; downloadName?: string }): Promise<SignedRequest> {
    this.objectPath(key);
    const grant: SignedGrant = { method: "GET", key, expires: expiresAt(options.expiresInSeconds) };
    if (options.downloadName !== undefined) grant.downloadName = options.downloadName;
    return { url: this.signedUrl(grant), method: "GET", headers: {} };
  }

  async createMultipartUpload(key: string, options: { contentType: string; partSize?: number }): Promise<{ uploadId: string }> {
    this.objectPath(key);
    const uploadId = randomBytes(16).toString("hex");
    const dir = this.uploadDir(uploadId);
    await mkdir(dir, { recursive: true });
    const meta: UploadMeta = { key, contentType: options.contentType, createdAt: Date.now() };
    if (options.partSize !== undefined && Number.isSafeInteger(options.partSize) && options.partSize > 0) meta.partSize = options.partSize;
    await writeFile(join(dir, "upload.json"), JSON.stringify(meta));
    return { uploadId };
  }

  async signUploadPart(
    key: string,
    uploadId: string,
    partNumber: number,
    options: { expiresInSeconds: number; contentLength?: number },
  ): Promise<SignedRequest> {
    this.objectPath(key);
    if (!uploadIdPattern.test(uploadId)) throw new NoSuchUploadError(uploadId);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) throw new RangeError("partNumber must be 1 to 10000");
    const grant: SignedGrant = { method: "PUT", key, uploadId, partNumber, expires: expiresAt(options.expiresInSeconds) };
    if (options.contentLength !== undefined) grant.size = options.contentLength;
    return { url: this.signedUrl(grant), method: "PUT", headers: {} };
  }

  async listParts(key: string, uploadId: string): Promise<UploadedPart[]> {
    await this.readUpload(key, uploadId);
    try {
      return await this.partsIn(this.uploadDir(uploadId));
    } catch (error) {
      // Completed or aborted since readUpload looked.
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
  }

  async completeMultipartUpload(key: string, uploadId: string, parts: UploadedPart[]): Promise<BlobInfo> {
    const upload = await this.readUpload(key, uploadId);
    if (parts.length === 0) throw new InvalidPartError(0);
    parts.forEach((part, i) => {
      if (i > 0 && part.partNumber <= parts[i - 1]!.partNumber) throw new InvalidPartError(part.partNumber);
    });
    // Claim the upload with one rename, so two concurrent completes cannot both assemble it and a
    // part PUT arriving now finds no upload instead of being silently left out.
    const dir = this.uploadDir(uploadId);
    const claimed = `${dir}~completing-${randomBytes(4).toString("hex")}`;
    try {
      await rename(dir, claimed);
    } catch (error) {
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    if (upload.partSize !== undefined) return this.completeInPlace(key, upload, dir, claimed, parts);
    const tmp = await this.tempPath();
    const out = await open(tmp, "wx");
    try {
      let size = 0;
      for (const part of parts) {
        const etag = part.etag.replace(/"/g, "");
        try {
          size += await appendFile(out, join(claimed, `${part.partNumber}-${etag}`));
        } catch (error) {
          throw isNotFound(error) ? new InvalidPartError(part.partNumber) : error;
        }
      }
      await out.close();
      await this.commit(tmp, this.objectPath(key), upload.contentType);
      await rm(claimed, { recursive: true, force: true });
      return { size, contentType: upload.contentType };
    } catch (error) {
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      await rename(claimed, dir).catch(() => {});
      throw error;
    }
  }

  async abortMultipartUpload(key: string, uploadId: string): Promise<void> {
    this.objectPath(key);
    if (!uploadIdPattern.test(uploadId)) return;
    await rm(this.uploadDir(uploadId), { recursive: true, force: true });
  }

  async close(): Promise<void> {}

  /** Serves the URLs this store signs (GET of an object, PUT of a part); see filesystem-http.ts. */
  handle(request: Request): Promise<Response> {
    return serveStorageRequest(this, request);
  }

  /** The grant a signed request carries, or null when it is forged, tampered with or expired. */
  verify(method: "GET" | "PUT", key: string, query: URLSearchParams): SignedGrant | null {
    return verifySignedQuery(this.secret, method, key, query);
  }

  /**
   * Streams one part to disk (never the whole part in memory). `declaredLength` (Content-Length)
   * both caps the body and must be met; without one the cap is maxPartBytes.
   */
  async writePart(
    key: string,
    uploadId: string,
    partNumber: number,
    body: ReadableStream<Uint8Array>,
    declaredLength: number | null,
    framed = false,
  ): Promise<UploadedPart> {
    const upload = await this.readUpload(key, uploadId);
    const dir = this.uploadDir(uploadId);
    if (upload.partSize !== undefined) return this.writePartInPlace(uploadId, dir, upload.partSize, partNumber, body, declaredLength, framed);
    const tmp = join(dir, `${partNumber}~tmp-${randomBytes(8).toString("hex")}`);
    let out: Awaited<ReturnType<typeof open>>;
    try {
      out = await open(tmp, "wx");
    } catch (error) {
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    try {
      const { size, md5 } = await writeStream(out, body, declaredLength ?? this.maxPartBytes);
      if (declaredLength !== null && size !== declaredLength) throw new IncompleteBodyError(declaredLength, size);
      await out.close();
      const name = `${partNumber}-${md5}`;
      await rename(tmp, join(dir, name));
      // A re-sent part replaces the earlier one; listParts prefers the newest while both exist.
      for (const other of await readdir(dir)) {
        if (other !== name && other.startsWith(`${partNumber}-`)) await rm(join(dir, other), { force: true });
      }
      return { partNumber, size, etag: `"${md5}"` };
    } catch (error) {
      await out.close().catch(() => {});
      await rm(tmp, { force: true });
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
  }

  /*
   * Uploads created with a part size write every part straight into one file, `data`, at offset
   * (partNumber - 1) * partSize, and complete only truncates that file and renames it into place: no
   * second copy of the bytes (a 2 GiB upload is written once, not twice). A part is then recorded by
   * a sparse marker file `<partNumber>-<md5>` whose length is the part's size (so listParts reads
   * sizes as before; its ETag is an MD5, or a random version id when Bun's native writer wrote it, see
   * positioned-write.ts) and guarded while it is written by `<partNumber>.lock`, created exclusively: a
   * second PUT of the same part meanwhile is PartBusyError, and complete refuses while any part is
   * being written. Such an upload completes only as parts 1..n, each but the last of partSize bytes.
   */
  /** `framed`: the request carried a Content-Length, so HTTP itself ends the body at `declaredLength`. */
  private async writePartInPlace(
    uploadId: string,
    dir: string,
    partSize: number,
    partNumber: number,
    body: ReadableStream<Uint8Array>,
    declaredLength: number | null,
    framed: boolean,
  ): Promise<UploadedPart> {
    if (declaredLength !== null && declaredLength > partSize) throw new BodyTooLargeError(partSize);
    const lock = join(dir, `${partNumber}.lock`);
    await this.takeLock(lock, uploadId, partNumber);
    try {
      // The earlier copy of this part is invalid from the first byte we overwrite.
      await this.removeMarkers(dir, partNumber, null);
      const data = join(dir, "data");
      const offset = (partNumber - 1) * partSize;
      let written: { size: number; md5: string };
      try {
        if (framed && declaredLength !== null && canWriteAtOffset) {
          // HTTP framing holds a body with a Content-Length to that many bytes (checked ≤ partSize above),
          // so the native writer cannot run into the next part. Its ETag is a fresh version id, not an MD5.
          written = { size: await writeBodyAt(data, body, offset), md5: randomBytes(16).toString("hex") };
        } else {
          const out = await open(data, fsConstants.O_RDWR | fsConstants.O_CREAT, 0o644);
          try {
            written = await writeStream(out, body, declaredLength ?? partSize, offset);
          } finally {
            await out.close();
          }
        }
      } catch (error) {
        throw isNotFound(error) ? new NoSuchUploadError(uploadId) : error;
      }
      if (declaredLength !== null && written.size !== declaredLength) throw new IncompleteBodyError(declaredLength, written.size);
      const marker = join(dir, `${partNumber}-${written.md5}`);
      const tmp = join(dir, `${partNumber}~tmp-${randomBytes(8).toString("hex")}`);
      try {
        await writeFile(tmp, "");
        await truncate(tmp, written.size);
        await rename(tmp, marker);
      } catch (error) {
        await rm(tmp, { force: true });
        throw isNotFound(error) ? new NoSuchUploadError(uploadId) : error;
      }
      return { partNumber, size: written.size, etag: `"${written.md5}"` };
    } finally {
      await rm(lock, { force: true });
    }
  }

  private async takeLock(lock: string, uploadId: string, partNumber: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await (await open(lock, "wx")).close();
        return;
      } catch (error) {
        if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
        if ((error as { code?: unknown }).code !== "EEXIST" || attempt > 0) throw new PartBusyError(partNumber);
        const info = await stat(lock).catch(() => null);
        if (info && Date.now() - info.mtimeMs < staleLockMs) throw new PartBusyError(partNumber);
        await rm(lock, { force: true }); // left by a writer that died
      }
    }
  }

  private async removeMarkers(dir: string, partNumber: number, keep: string | null): Promise<void> {
    for (const other of await readdir(dir).catch(() => [] as string[])) {
      if (other !== keep && partFilePattern.exec(other)?.[1] === String(partNumber)) await rm(join(dir, other), { force: true });
    }
  }

  private async completeInPlace(key: string, upload: UploadMeta, dir: string, claimed: string, parts: UploadedPart[]): Promise<BlobInfo> {
    const partSize = upload.partSize!;
    try {
      const names = await readdir(claimed);
      const busy = names.find((name) => name.endsWith(".lock"));
      if (busy) throw new PartBusyError(Number.parseInt(busy, 10));
      let size = 0;
      for (const [i, part] of parts.entries()) {
        const marker = `${part.partNumber}-${part.etag.replace(/"/g, "")}`;
        const info = names.includes(marker) ? await stat(join(claimed, marker)) : null;
        const last = i === parts.length - 1;
        if (!info || part.partNumber !== i + 1 || (!last && info.size !== partSize) || info.size > partSize) throw new InvalidPartError(part.partNumber);
        size += info.size;
      }
      const data = join(claimed, "data");
      if (size === 0) await writeFile(data, "");
      await truncate(data, size);
      await this.commit(data, this.objectPath(key), upload.contentType);
      await rm(claimed, { recursive: true, force: true });
      return { size, contentType: upload.contentType };
    } catch (error) {
      await rename(claimed, dir).catch(() => {});
      throw error;
    }
  }

  /** Deletes uploads (and stray temp files) older than `olderThanMs`; returns how many uploads went. */
  async removeExpiredUploads(olderThanMs: number, nowMs: number = Date.now()): Promise<number> {
    await this.ensureDirs();
    const cutoff = nowMs - olderThanMs;
    let removed = 0;
    const uploads = join(this.root, "~uploads");
    for (const name of await readdir(uploads)) {
      const path = join(uploads, name);
      let created: number;
      try {
        created = uploadIdPattern.test(name)
          ? (JSON.parse(await readFile(join(path, "upload.json"), "utf8")) as UploadMeta).createdAt
          : (await stat(path)).mtimeMs; // an interrupted complete ("~completing-"), or debris
      } catch {
        created = (await stat(path).catch(() => null))?.mtimeMs ?? 0;
      }
      if (created < cutoff) {
        await rm(path, { recursive: true, force: true });
        removed++;
      }
    }
    const tmpDir = join(this.root, "~tmp");
    for (const name of await readdir(tmpDir)) {
      const info = await stat(join(tmpDir, name)).catch(() => null);
      if (info && info.mtimeMs < cutoff) await rm(join(tmpDir, name), { force: true });
    }
    return removed;
  }

  private async readUpload(key: string, uploadId: string): Promise<UploadMeta> {
    this.objectPath(key);
    if (!uploadIdPattern.test(uploadId)) throw new NoSuchUploadError(uploadId);
    let meta: UploadMeta;
    try {
      meta = JSON.parse(await readFile(join(this.uploadDir(uploadId), "upload.json"), "utf8")) as UploadMeta;
    } catch (error) {
      if (isNotFound(error)) throw new NoSuchUploadError(uploadId);
      throw error;
    }
    // S3 answers NoSuchUpload when the key does not match the upload; do the same.
    if (meta.key !== key) throw new NoSuchUploadError(uploadId);
    return meta;
  }

  private async partsIn(dir: string): Promise<UploadedPart[]> {
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

  /** Makes the object visible: the sidecar first, then the bytes, each by an atomic rename. */
  private async commit(tmp: string, path: string, contentType: string): Promise<void> {
    await mkdir(dirname(path), { recursive: true });
    const metaTmp = await this.tempPath();
    await writeFile(metaTmp, JSON.stringify({ contentType }));
    await rename(metaTmp, `${path}~meta.json`);
    await rename(tmp, path);
  }

  private async readContentType(path: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(`${path}~meta.json`, "utf8")) as { contentType?: unknown };
      return typeof meta.contentType === "string" ? meta.contentType : defaultContentType;
    } catch (error) {
      if (isNotFound(error)) return defaultContentType;
      throw error;
    }
  }

  private signedUrl(grant: SignedGrant): string {
    return `${this.publicUrl}/storage/${grant.key}?${signedQuery(this.secret, grant)}`;
  }

  /** The key's path, after refusing anything that is not a valid key (so no traversal). */
  private objectPath(key: string): string {
    if (!isValidBlobKey(key)) throw new TypeError(`invalid blob key: ${JSON.stringify(key)}`);
    return join(this.root, key);
  }

  private uploadDir(uploadId: string): string {
    return join(this.root, "~uploads", uploadId);
  }

  private async tempPath(): Promise<string> {
    await this.ensureDirs();
    return join(this.root, "~tmp", randomBytes(12).toString("hex"));
  }

  private ensureDirs(): Promise<unknown> {
    this.ready ??= Promise.all([mkdir(join(this.root, "~tmp"), { recursive: true }), mkdir(join(this.root, "~uploads"), { recursive: true })]).catch(
      (error: unknown) => {
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }
}
