/** Media for the transcription tests, made with ffmpeg and espeak-ng, or taken from ../shared/testdata. */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const sharedTestdata = join(import.meta.dir, "..", "..", "..", "shared", "testdata");
export const librispeechDir = join(sharedTestdata, "librispeech");

const work = mkdtempSync(join(tmpdir(), "scribe-media-fixtures-"));
let counter = 0;
const temp = (extension: string) => join(work, `f${++counter}.${extension}`);

export async function ffmpeg(...args: string[]): Promise<void> {
  const child = Bun.spawn(["ffmpeg", "-nostdin", "-v", "error", "-y", ...args], { stdout: "ignore", stderr: "pipe" });
  const [log, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`ffmpeg ${args.join(" ")}: ${log}`);
}

/** A LibriSpeech clip and its reference transcript, or null (with a visible SKIPPED line) when ../shared is absent. */
export function librispeech(id: string): { bytes: Uint8Array; reference: string } | null {
  const file = join(librispeechDir, `${id}.flac`);
  if (!existsSync(file)) {
    console.log(`SKIPPED: ${file} is absent (../shared/testdata), the test that needs it does not run`);
    return null;
  }
  const line = readFileSync(join(librispeechDir, "transcripts.txt"), "utf8")
    .split("\n")
    .find((l) => l.startsWith(`${id} `))!;
  return { bytes: readFileSync(file), reference: line.slice(id.length + 1) };
}

/** Several LibriSpeech clips one after the other with `pauseSeconds` of silence between, as FLAC. */
export async function joinedClips(ids: string[], pauseSeconds: number): Promise<{ bytes: Uint8Array; reference: string; seconds: number } | null> {
  const clips = ids.map(librispeech);
  if (clips.some((c) => c === null)) return null;
  const out = temp("flac");
  const inputs = ids.flatMap((id) => ["-i", join(librispeechDir, `${id}.flac`)]);
  const padded = ids.map((_, i) => `[${i}:a]aresample=16000,apad=pad_dur=${pauseSeconds}[a${i}]`).join(";");
  await ffmpeg(...inputs, "-filter_complex", `${padded};${ids.map((_, i) => `[a${i}]`).join("")}concat=n=${ids.length}:v=0:a=1`, "-ac", "1", out);
  const seconds = Number((await run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", out])).trim());
  return { bytes: readFileSync(out), reference: clips.map((c) => c!.reference).join(" "), seconds };
}

async function run(command: string[]): Promise<string> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new Error(`${command[0]} failed`);
  return out;
}

/** Speech by espeak-ng (voice e.g. "en-us" or "en-us+f3"), as WAV. */
export async function spoken(text: string, voice = "en-us"): Promise<string> {
  const out = temp("wav");
  const child = Bun.spawn(["espeak-ng", "-v", voice, "-s", "140", "-w", out, text], { stdout: "ignore", stderr: "pipe" });
  if ((await child.exited) !== 0) throw new Error(`espeak-ng failed: ${await new Response(child.stderr).text()} (run npm test, which installs espeak-ng)`);
  return out;
}

/** Files (WAV) joined with `pauseSeconds` between them, encoded as MP3; returns the bytes and where each part starts and ends (ms). */
export async function joinedMp3(files: string[], pauseSeconds: number): Promise<{ bytes: Uint8Array; parts: { start: number; end: number }[] }> {
  const parts: { start: number; end: number }[] = [];
  let at = 0;
  for (const file of files) {
    const seconds = Number((await run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", file])).trim());
    parts.push({ start: Math.round(at * 1000), end: Math.round((at + seconds) * 1000) });
    at += seconds + pauseSeconds;
  }
  const out = temp("mp3");
  const inputs = files.flatMap((f) => ["-i", f]);
  const padded = files.map((_, i) => `[${i}:a]aresample=16000,apad=pad_dur=${pauseSeconds}[a${i}]`).join(";");
  await ffmpeg(
    ...inputs,
    "-filter_complex",
    `${padded};${files.map((_, i) => `[a${i}]`).join("")}concat=n=${files.length}:v=0:a=1`,
    "-ac",
    "1",
    "-c:a",
    "libmp3lame",
    "-b:a",
    "64k",
    out,
  );
  return { bytes: readFileSync(out), parts };
}

/** Media that is not speech. */
export const badMedia = {
  empty: () => new Uint8Array(),
  text: () => new TextEncoder().encode("Meeting notes\nThese are not audio.\n".repeat(50)),
  async image(): Promise<Uint8Array> {
    const out = temp("png");
    await ffmpeg("-f", "lavfi", "-i", "color=c=blue:s=64x64", "-frames:v", "1", out);
    return readFileSync(out);
  },
  async videoWithoutAudio(): Promise<Uint8Array> {
    const out = temp("mp4");
    await ffmpeg("-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-t", "2", "-an", "-pix_fmt", "yuv420p", out);
    return readFileSync(out);
  },
  async silence(seconds: number): Promise<Uint8Array> {
    const out = temp("flac");
    await ffmpeg("-f", "lavfi", "-i", "anullsrc=r=8000:cl=mono", "-t", String(seconds), "-c:a", "flac", out);
    return readFileSync(out);
  },
  /** An MP3 whose frames after the first kilobyte are garbage. */
  async corrupt(): Promise<Uint8Array> {
    const out = temp("mp3");
    await ffmpeg("-f", "lavfi", "-i", "sine=frequency=440:duration=3", "-c:a", "libmp3lame", out);
    const bytes = readFileSync(out);
    for (let i = 1024; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
    return bytes.subarray(0, 4096);
  },
};

/** Six spoken sentences (three, twice) with 1 s pauses, as MP3: a recording that several 5 s chunks cut into. */
export async function meetingRecording(): Promise<Uint8Array> {
  const phrases = [
    "The committee met on Monday to discuss the new park.",
    "Everyone agreed the playground needs more shade.",
    "The budget will be voted on next week.",
  ];
  return (await joinedMp3(await Promise.all([...phrases, ...phrases].map((p) => spoken(p))), 1)).bytes;
}
