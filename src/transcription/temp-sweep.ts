import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { isRunning } from "../core/child-process.ts";

/** Where transcriptions copy and decode media: TRANSCRIPTION_TMPDIR, else the OS temp folder. */
export const transcriptionTempRoot = (tempDir: string | null) => tempDir ?? tmpdir();

/** Folders of the release before, named without a pid: swept once older than any transcription runs. */
const unnamedMaxAgeMs = 24 * 3600 * 1000;

/**
 * Removes what transcriptions left in the temp folder when their process died (kill -9, a crash): the
 * folders `scribe-task-<pid>-<task>-*` of processes no longer running on this host. Run at start and
 * periodically by each worker process; live work (its pid running) is never touched.
 */
export async function sweepTemporaryMedia(root: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const withPid = /^scribe-task-(\d+)-\d+-/.exec(name);
    const unnamed = !withPid && /^scribe-task-\d+-[^-]+$/.test(name);
    if (!withPid && !unnamed) continue;
    const path = join(root, name);
    if (withPid) {
      if (Number(withPid[1]) === process.pid || isRunning(Number(withPid[1]))) continue;
    } else {
      const info = await stat(path).catch(() => null);
      if (!info || Date.now() - info.mtimeMs < unnamedMaxAgeMs) continue;
    }
    await rm(path, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
