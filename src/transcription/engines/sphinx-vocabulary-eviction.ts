import { readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isRunning } from "../../core/child-process.ts";

/**
 * Built vocabularies kept on disk, each a 30 MB copy of the model and dictionary: at most 16 (about 480 MB) whatever
 * their age, so that a burst of tasks with distinct vocabularies cannot fill the temp folder. The 8 most recently used
 * stay (a task's later chunks, its retries and a user's next upload reuse them); the others go once unused for ten
 * minutes. None is removed while a recognition uses it: more than 16 are kept only while more than 16 are in use.
 */
export const maxKeptVocabularies = 16;
const keptIdleVocabularies = 8;
const keptUnusedMs = 600_000;

/** A built vocabulary's folder: named by its cache key. */
const builtName = /^[0-9a-f]{32}$/;
/** `in-use-<pid>-<n>`: a file in a vocabulary's folder while a recognition of process <pid> uses it. */
const inUseMarker = /^in-use-(\d+)-/;
let markersMade = 0;

/**
 * Marks a vocabulary's folder as in use until the returned function is called, for every process's eviction: worker
 * processes of one host share the cache folder, and one must not remove what another's chunk is about to read.
 */
export async function markInUse(dir: string): Promise<() => Promise<void>> {
  const marker = join(dir, `in-use-${process.pid}-${++markersMade}`);
  await writeFile(marker, "");
  return () => rm(marker, { force: true });
}

/** A marker of a running process (a dead one's marker means nothing: its chunks are gone). */
async function marked(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.some((name) => {
    const pid = inUseMarker.exec(name)?.[1];
    return pid !== undefined && isRunning(Number(pid));
  });
}

/**
 * Removes the vocabularies beyond those kept, least recently used first (a folder's time is touched at each use), and
 * half-built folders of a process that died while building. `inUse` names what this process uses (marked or about to be).
 */
export async function evictVocabularies(cacheDir: string, inUse: (name: string) => boolean): Promise<string[]> {
  const names = await readdir(cacheDir).catch(() => [] as string[]);
  const entries = await Promise.all(names.map(async (name) => ({ name, info: await stat(join(cacheDir, name)).catch(() => null) })));
  const idleMs = (info: { mtimeMs: number }) => Date.now() - info.mtimeMs;
  const removed = entries.filter((e) => e.info !== null && e.name.includes(".building-") && idleMs(e.info) > keptUnusedMs).map((e) => e.name);
  const built = entries.flatMap((e) => (e.info !== null && builtName.test(e.name) ? [{ name: e.name, info: e.info }] : []));
  const used = await Promise.all(built.map(async (e) => inUse(e.name) || (await marked(join(cacheDir, e.name)))));
  // Those in use are kept first and count towards the limit; the rest fill what is left, most recently used first.
  let kept = used.filter(Boolean).length;
  const idle = built.filter((_, i) => !used[i]).sort((a, b) => b.info.mtimeMs - a.info.mtimeMs);
  for (const { name, info } of idle) {
    if (kept < keptIdleVocabularies || (kept < maxKeptVocabularies && idleMs(info) <= keptUnusedMs)) kept++;
    else removed.push(name);
  }
  for (const name of removed) await rm(join(cacheDir, name), { recursive: true, force: true }).catch(() => {});
  return removed;
}
