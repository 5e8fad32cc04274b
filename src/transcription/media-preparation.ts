import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { BlobStore } from "../blobs/port.ts";
import { formatDuration } from "../notifications/decisions.ts";
import type { AttemptWork } from "./attempt-work.ts";
import { findSilences, planChunks } from "./chunking.ts";
import type { TranscriptionConfig } from "./config.ts";
import { MediaError, assertRecognisable, decodeToPcm, measureLevels, probe } from "./media.ts";
import { fetchMedia, mediaSize, prefixProbeBytes } from "./media-source.ts";

/**
 * The task's media fetched, checked (audio, not too long, not silent), decoded to 16 kHz mono PCM in the attempt's
 * folder and cut at pauses into chunks (kept on `work.chunks`). Throws MediaError for what the user has to fix.
 */
export async function prepareMedia(work: AttemptWork, blobs: BlobStore, config: TranscriptionConfig): Promise<{ pcm: string; durationMs: number }> {
  const { facts, signal, time } = work;
  const media = join(work.dir, "media");
  const pcm = join(work.dir, "audio.pcm");
  const size = await time("fetch", () => mediaSize(blobs, facts.mediaKey));
  if (size > prefixProbeBytes) {
    // A container is recognised by its first bytes: a large file that is not media is refused before it is copied.
    await time("fetch", () => fetchMedia(blobs, facts.mediaKey!, media, signal, prefixProbeBytes));
    await time("probe", () => assertRecognisable(media, signal));
  }
  await time("fetch", () => fetchMedia(blobs, facts.mediaKey!, media, signal));
  const info = await time("probe", () => probe(media, signal));
  if (!info.hasAudio && /^image2|_pipe$/.test(info.format)) throw new MediaError("The file is a picture, not audio or video.");
  if (!info.hasAudio)
    throw new MediaError(info.hasVideo ? "The video has no audio track: there is nothing to transcribe." : "The file has no audio to transcribe.");
  const tooLong = new MediaError(`The media is longer than ${formatDuration(config.maxMediaSeconds)}, the most that is transcribed (MAX_MEDIA_SECONDS).`);
  if (info.durationSeconds !== null && info.durationSeconds > config.maxMediaSeconds + 1) throw tooLong;
  const durationMs = await time("decode", () => decodeToPcm(media, pcm, config.maxMediaSeconds, signal, info.durationSeconds));
  if (durationMs > config.maxMediaSeconds * 1000) throw tooLong;
  await rm(media, { force: true }); // only the PCM is needed from here on
  work.chunks = await time("plan", async () => {
    const levels = await measureLevels(pcm);
    const analysis = findSilences(levels);
    if (analysis.silent) return [];
    const targetMs = config.chunkSeconds * 1000;
    return planChunks(durationMs, analysis.silences, levels, { targetMs, maxMs: 2 * targetMs });
  });
  if (work.chunks.length === 0) throw new MediaError("The media is silent: there is no speech to transcribe.");
  work.log.info({ mediaSeconds: durationMs / 1000, chunks: work.chunks.length }, "media decoded and cut into chunks");
  return { pcm, durationMs };
}
