import { readFile, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { uploadIdPattern, type FileLayout, type UploadMeta } from "./filesystem-layout.ts";

/**
 * Deletes multipart uploads (and stray temp files) older than `olderThanMs`: uploads no session knows
 * of (a sign that died before recording it) and debris of interrupted completes. Returns how many
 * uploads went.
 */
export async function sweepFileUploads(layout: FileLayout, olderThanMs: number, nowMs: number): Promise<number> {
  await layout.ensureDirs();
  const cutoff = nowMs - olderThanMs;
  let removed = 0;
  for (const name of await readdir(layout.uploadsDir)) {
    const path = join(layout.uploadsDir, name);
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
  for (const name of await readdir(layout.tempDir)) {
    const info = await stat(join(layout.tempDir, name)).catch(() => null);
    if (info && info.mtimeMs < cutoff) await rm(join(layout.tempDir, name), { force: true });
  }
  return removed;
}
