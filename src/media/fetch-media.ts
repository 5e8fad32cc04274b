import type { BlobStore } from "../blobs/port.ts";
import { safeFileName, extensionOf } from "./formats.ts";
import { MediaFetchError, safeFetch, type Resolver } from "./safe-fetch.ts";
import { extensionForType, mediaTypeOf, responseFileName } from "./media-type.ts";
import { downloadVideoLink } from "./video-link.ts";

/** MEDIA_FETCH_* settings: caps for every server-side fetch of a `remote` or `videolink` task's media. */
export type MediaFetchSettings = {
  maxBytes: number;
  timeoutSeconds: number;
  /** Tests only (MEDIA_FETCH_ALLOW_LOOPBACK=true): lets fetches reach 127.0.0.0/8 and ::1. */
  allowLoopback: boolean;
  /** Tests only (MEDIA_FETCH_FORBIDDEN_ADDRESSES): loopback addresses refused like private ones. */
  forbiddenAddresses?: readonly string[];
  ytDlp: string;
  resolve?: Resolver;
};

export const defaultMediaFetchSettings: MediaFetchSettings = { maxBytes: 2_147_483_648, timeoutSeconds: 900, allowLoopback: false, ytDlp: "yt-dlp" };

export type FetchedMedia = { key: string; size: number; contentType: string; file: string };

/** Where a task's fetched media is kept; a retry overwrites it. */
/** Under the user's prefix (see media/ownership.ts), with 128 random bits: a key nobody can guess. */
export const mediaKey = (userId: number, taskId: number, fileName: string) =>
  `media/${userId}/${taskId}-${crypto.randomUUID().replaceAll("-", "")}/${safeFileName(fileName)}`;

/**
 * Downloads a task's media into the blob store: a direct file URL (`remote`) with the SSRF-safe
 * fetcher, a video page (`videolink`) with yt-dlp. Failures a user can act on are MediaFetchError.
 */
export async function fetchTaskMedia(
  task: { disk: "remote" | "videolink"; url: string; userId: number; taskId: number },
  blobs: BlobStore,
  settings: MediaFetchSettings,
): Promise<FetchedMedia> {
  const options = {
    maxBytes: settings.maxBytes,
    timeoutMs: settings.timeoutSeconds * 1000,
    allowLoopback: settings.allowLoopback,
    forbiddenAddresses: settings.forbiddenAddresses,
    resolve: settings.resolve,
  };
  if (task.disk === "videolink") {
    const file = await downloadVideoLink(task.url, { ...options, ytDlp: settings.ytDlp });
    try {
      const key = mediaKey(task.userId, task.taskId, file.fileName);
      const stored = await blobs.put(key, Bun.file(file.path).stream(), { contentType: file.contentType });
      return { key, size: stored.size, contentType: file.contentType, file: file.fileName };
    } finally {
      await file.cleanUp();
    }
  }

  const response = await safeFetch(task.url, options);
  let fileName = responseFileName(response.url, response.contentDisposition);
  const contentType = mediaTypeOf(response.contentType, fileName);
  if (!contentType) {
    await response.body.cancel();
    throw new MediaFetchError(`the URL did not return audio or video (it returned ${response.contentType ?? "no content type"})`);
  }
  if (!extensionOf(fileName)) fileName = `${fileName}.${extensionForType(contentType) ?? "bin"}`;
  const key = mediaKey(task.userId, task.taskId, fileName);
  const stored = await blobs.put(key, response.body, { contentType });
  if (stored.size === 0) {
    await blobs.delete(key);
    throw new MediaFetchError("the URL returned an empty file");
  }
  return { key, size: stored.size, contentType, file: fileName };
}
