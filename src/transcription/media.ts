/**
 * Media in, 16 kHz mono PCM out, with ffprobe and ffmpeg (Debian `ffmpeg`). Problems with the file
 * itself become MediaError, whose message is the reason the task failed.
 */
import { open } from "node:fs/promises";
import { frameLevels } from "./chunking.ts";
import { bytesPerMs, sampleRate } from "./wav.ts";
import { diesWithParent } from "../core/child-process.ts";

export class MediaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MediaError";
  }
}

async function run(command: string[], signal?: AbortSignal): Promise<{ code: number; stdout: string; stderr: string }> {
  let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
  try {
    child = Bun.spawn(diesWithParent(command), { stdin: "ignore", stdout: "pipe", stderr: "pipe", signal });
  } catch (error) {
    throw new Error(`${command[0]} could not be started (is ffmpeg installed?): ${(error as Error).message}`);
  }
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  signal?.throwIfAborted();
  return { code, stdout, stderr };
}

/** The last line ffmpeg wrote, without its "[component @ 0x...]" prefix or our temp path: enough to say what went wrong. */
function lastLine(stderr: string, path: string): string {
  const lines = stderr.trim().split("\n").filter(Boolean);
  return (lines[lines.length - 1] ?? "")
    .replace(/^\[[^\]]*\]\s*/, "")
    .replaceAll(`${path}: `, "")
    .replaceAll(path, "the file")
    .slice(0, 200);
}

export type MediaInfo = { durationSeconds: number | null; hasAudio: boolean; hasVideo: boolean; format: string };

const probeCommand = (path: string) => ["ffprobe", "-v", "error", "-show_entries", "format=duration,format_name:stream=codec_type", "-of", "json", path];
const notMedia = (stderr: string, path: string) =>
  new MediaError(`The file is not audio or video that can be read (${lastLine(stderr, path) || "unknown format"}).`);

/**
 * For the first bytes of a large file: refuses it when ffprobe recognises no format at all there
 * (formats are recognised by their first bytes). Other complaints are let through: a container may
 * keep its index at the end.
 */
export async function assertRecognisable(prefixPath: string, signal?: AbortSignal): Promise<void> {
  const { code, stdout, stderr } = await run(probeCommand(prefixPath), signal);
  // When a demuxer took the file, its complaints carry its name ("[mov,mp4,... @ 0x...] moov atom not found").
  const noDemuxer = !/\[[^\]]+ @ 0x[0-9a-f]+\]/.test(stderr);
  if (code !== 0 && noDemuxer && /Invalid data found when processing input/.test(stderr)) throw notMedia(stderr, prefixPath);
  if (code === 0 && (JSON.parse(stdout) as { format?: { format_name?: string } }).format?.format_name === "tty")
    throw new MediaError("The file is not audio or video (it looks like text).");
}

export async function probe(path: string, signal?: AbortSignal): Promise<MediaInfo> {
  const { code, stdout, stderr } = await run(probeCommand(path), signal);
  if (code !== 0) throw notMedia(stderr, path);
  const info = JSON.parse(stdout) as { format?: { duration?: string; format_name?: string }; streams?: { codec_type?: string }[] };
  const format = info.format?.format_name ?? "";
  const streams = info.streams ?? [];
  // ffprobe reads text as "tty" (ANSI art) and lone pictures as one-frame video: neither is media to transcribe.
  if (format === "tty") throw new MediaError("The file is not audio or video (it looks like text).");
  const duration = Number(info.format?.duration);
  return {
    durationSeconds: Number.isFinite(duration) ? duration : null,
    hasAudio: streams.some((s) => s.codec_type === "audio"),
    hasVideo: streams.some((s) => s.codec_type === "video"),
    format,
  };
}

/**
 * Decodes the first audio track to raw 16 kHz mono signed 16-bit PCM, at most `maxSeconds` (one more
 * second is decoded so that a longer file can be told apart). Returns the length in milliseconds.
 */
export async function decodeToPcm(
  input: string,
  output: string,
  maxSeconds: number,
  signal?: AbortSignal,
  expectedSeconds: number | null = null,
): Promise<number> {
  const { code, stderr } = await run(
    [
      "ffmpeg",
      "-nostdin",
      "-v",
      "error",
      "-y",
      "-i",
      input,
      "-map",
      "0:a:0",
      "-vn",
      "-sn",
      "-dn",
      "-t",
      String(maxSeconds + 1),
      "-ac",
      "1",
      "-ar",
      String(sampleRate),
      "-f",
      "s16le",
      "-acodec",
      "pcm_s16le",
      output,
    ],
    signal,
  );
  const size = (await Bun.file(output).exists()) ? Bun.file(output).size : 0;
  if (code !== 0 && size === 0) throw new MediaError(`The audio could not be decoded (${lastLine(stderr, input) || `ffmpeg exit code ${code}`}).`);
  if (size === 0) throw new MediaError("The audio track is empty: there is no sound to transcribe.");
  const decodedMs = Math.floor(size / bytesPerMs);
  // Damaged files decode partly, with errors: refuse when most of what the container announces is lost.
  if (stderr.trim() && expectedSeconds !== null && decodedMs < expectedSeconds * 500 && expectedSeconds - decodedMs / 1000 > 1) {
    throw new MediaError(
      `The file is damaged: only ${(decodedMs / 1000).toFixed(1)} s of its ${expectedSeconds.toFixed(1)} s could be decoded (${lastLine(stderr, input)}).`,
    );
  }
  return decodedMs;
}

/** Per-frame levels (dBFS, 20 ms frames) of a PCM file, read as a stream so hours of audio stay cheap. */
export async function measureLevels(pcmPath: string): Promise<Float32Array> {
  const frameBytes = bytesPerMs * 20;
  const blockFrames = 4096;
  const handle = await open(pcmPath, "r");
  const parts: Float32Array[] = [];
  try {
    const buffer = new Uint8Array(frameBytes * blockFrames);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      const whole = bytesRead - (bytesRead % frameBytes);
      if (whole > 0) parts.push(frameLevels(new Int16Array(buffer.buffer.slice(0, whole))));
      if (bytesRead < buffer.length) break;
    }
  } finally {
    await handle.close();
  }
  const levels = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    levels.set(part, at);
    at += part.length;
  }
  return levels;
}
