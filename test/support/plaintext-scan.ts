/**
 * What the erasure tests look for on disk: every file under a DATA_DIR (or a backup) whose bytes hold a text, the
 * SQLite files' write-ahead logs checkpointed first, so the scan reads what the files hold at rest.
 */
import { Database } from "bun:sqlite";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestApp } from "./test-app.ts";
import { segment, waitForStatus, type User } from "./tasks.ts";

/** Every file under `dir`, recursively, by its path. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : [];
  });
}

/** Checkpoints and truncates every SQLite database's write-ahead log under `dir`. */
export function checkpointAll(dir: string): void {
  for (const path of filesUnder(dir).filter((file) => file.endsWith(".sqlite"))) {
    const db = new Database(path);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    db.close();
  }
}

/** Every file under `dir` whose bytes hold `text` (paths from `dir`), its databases checkpointed first. */
export function filesHolding(dir: string, text: string): string[] {
  checkpointAll(dir);
  const needle = Buffer.from(text);
  return filesUnder(dir)
    .filter((path) => readFileSync(path).includes(needle))
    .map((path) => path.slice(dir.length + 1));
}

/** A media file of the user's own, stored where an upload puts it; its key. */
export async function storedMedia(app: TestApp, user: User, file: string): Promise<string> {
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/${file}.mp3`;
  await app.adapters.blobs.put(key, new TextEncoder().encode(`media of ${file}`), { contentType: "audio/mpeg" });
  return key;
}

/**
 * A finished task with media and a supplied transcript of `words`, created with an Idempotency-Key (the answer kept
 * for a retry shows the task too, and must go with it).
 */
export async function finishedTaskWithMedia(app: TestApp, user: User, name: string, file: string, words: string): Promise<number> {
  const path = await storedMedia(app, user, file);
  const created = await app.request("POST", "/api/tasks", {
    token: user.token,
    headers: { "idempotency-key": crypto.randomUUID() },
    json: { disk: "objstore", name, path, segments: [segment(0, 1500, `${words} said in confidence`)] },
  });
  if (created.status !== 201) throw new Error(`create failed: ${created.status} ${await created.text()}`);
  const { id } = (await created.json()) as { id: number };
  await waitForStatus(app, user, id, "finished");
  return id;
}
