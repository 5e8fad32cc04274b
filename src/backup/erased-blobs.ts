/**
 * The blobs of erased scopes, removed from a restored copy of the blob store (src/blobs/filesystem-layout.ts). A backup
 * taken before an erasure holds the files the erasure removed since: transcripts (JSON, in the clear), media, exports.
 * The events that named them cannot say which any more (their paths are encrypted under the destroyed keys), so they
 * are found by the layouts their keys follow, which name the task or the account:
 *   transcripts/task-<id>/...                      a task's transcripts (src/tasks/transcripts.ts)
 *   exports/<id>/...                               its exports (src/exports/plan.ts)
 *   work/recognition/<id>-<attempt>/...            its recognition's chunk results (src/transcription/chunk-results.ts)
 *   media/<owner>/<id>-<random>/...                media fetched for it (src/media/fetch-media.ts)
 *   uploads/<owner>/<uploadId>/...                 an upload's media (src/uploads/service.ts), its scope `upload-<id>`
 *   avatars/<owner>/, uploads/<owner>/, media/<owner>/   everything of an erased account
 * plus the media keys the caller read elsewhere (the backup's read models), and multipart uploads in progress
 * (`~uploads/<id>/upload.json`) whose object would land under one of those places.
 */
import { existsSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Erasure } from "../erasure/data-keys.ts";

/** A place to remove: every entry of `folder` whose name starts with `namePrefix` ("" for the folder itself). */
type Place = { folder: string; namePrefix: string };

const digits = (text: string) => /^[1-9]\d{0,15}$/.test(text);

/** The folder of a media key (`uploads/<owner>/<random>/<file>` or `media/<owner>/<task>-<random>/<file>`) when it is the owner's. */
function mediaFolderOf(key: string, owner: number): Place | null {
  const match = /^(uploads|media)\/(\d+)\/([0-9A-Za-z_-]+)\/[^/]+$/.exec(key);
  return match && Number(match[2]) === owner ? { folder: `${match[1]}/${match[2]}/${match[3]}`, namePrefix: "" } : null;
}

/** The places an erasure empties; `mediaKeys`: the media of erased tasks, by task id, as known elsewhere. */
function placesOf(erasure: Erasure, mediaKeys: ReadonlyMap<number, string>): Place[] {
  const [kind, id = ""] = erasure.scope.split(/-(.*)/s);
  const owner = erasure.accountId;
  const places: Place[] = [];
  if (kind === "task" && digits(id)) {
    places.push(
      { folder: `transcripts/task-${id}`, namePrefix: "" },
      { folder: `exports/${id}`, namePrefix: "" },
      { folder: "work/recognition", namePrefix: `${id}-` },
    );
    if (owner > 0) places.push({ folder: `media/${owner}`, namePrefix: `${id}-` });
    const media = mediaKeys.get(Number(id));
    const folder = media === undefined || owner <= 0 ? null : mediaFolderOf(media, owner);
    if (folder) places.push(folder);
  } else if (kind === "upload" && /^[0-9a-f]{32}$/.test(id) && owner > 0) {
    places.push({ folder: `uploads/${owner}/${id}`, namePrefix: "" });
  } else if (kind === "account" && digits(id)) {
    for (const root of ["avatars", "uploads", "media"]) places.push({ folder: `${root}/${id}`, namePrefix: "" });
  }
  return places;
}

/** Removes what `place` names under `root`; returns how many entries went. */
async function removePlace(root: string, place: Place): Promise<number> {
  const folder = join(root, place.folder);
  if (!existsSync(folder)) return 0;
  if (place.namePrefix === "") {
    await rm(folder, { recursive: true, force: true });
    return 1;
  }
  let removed = 0;
  for (const name of await readdir(folder)) {
    if (!name.startsWith(place.namePrefix)) continue;
    await rm(join(folder, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** Multipart uploads in progress whose object would be written under one of `places`. */
async function removeUploadsInProgress(root: string, places: readonly Place[]): Promise<number> {
  const uploads = join(root, "~uploads");
  if (!existsSync(uploads)) return 0;
  let removed = 0;
  for (const id of await readdir(uploads)) {
    let key: unknown;
    try {
      key = (JSON.parse(await readFile(join(uploads, id, "upload.json"), "utf8")) as { key?: unknown }).key;
    } catch {
      continue; // no record (yet): nothing names where it goes
    }
    if (typeof key !== "string") continue;
    if (!places.some((place) => key.startsWith(`${place.folder}/${place.namePrefix}`))) continue;
    await rm(join(uploads, id), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** Removes from the blob store copy at `root` everything of the erased scopes of `ledger`; returns how many folders went. */
export async function removeErasedBlobs(root: string, ledger: readonly Erasure[], mediaKeys: ReadonlyMap<number, string> = new Map()): Promise<number> {
  const places = ledger.flatMap((erasure) => placesOf(erasure, mediaKeys));
  let removed = 0;
  for (const place of places) removed += await removePlace(root, place);
  return removed + (await removeUploadsInProgress(root, places));
}
