import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ffmpeg } from "./transcription.ts";

export const librispeechDir = join(import.meta.dir, "..", "..", "..", "shared", "testdata", "librispeech");

/**
 * A recording of about `seconds` made of the LibriSpeech clips (or, without them, espeak-ng speech)
 * one after another with a short pause between, encoded as MP3 at `out`.
 */
export async function longRecording(work: string, seconds: number, out: string): Promise<void> {
  let clips = existsSync(librispeechDir)
    ? readdirSync(librispeechDir)
        .filter((f) => f.endsWith(".flac"))
        .sort()
        .map((f) => join(librispeechDir, f))
    : [];
  if (clips.length === 0) {
    const spoken = join(work, "spoken.wav");
    const child = Bun.spawn([
      "espeak-ng",
      "-w",
      spoken,
      "The meeting starts with the budget. We spend too much on travel and too little on training. Next quarter we will change that.",
    ]);
    if ((await child.exited) !== 0) throw new Error("neither the LibriSpeech clips nor espeak-ng are available");
    clips = [spoken];
  }
  const normalised: string[] = [];
  for (const [i, clip] of clips.entries()) {
    const wav = join(work, `clip-${i}.wav`);
    await ffmpeg(["-i", clip, "-ar", "16000", "-ac", "1", "-af", "apad=pad_dur=0.8", wav]);
    normalised.push(wav);
  }
  const lengths = await Promise.all(normalised.map(async (f) => (Bun.file(f).size - 44) / 32000));
  const list: string[] = [];
  for (let total = 0, i = 0; total < seconds; i++) {
    list.push(`file '${normalised[i % normalised.length]}'`);
    total += lengths[i % normalised.length]!;
  }
  const listFile = join(work, "list.txt");
  writeFileSync(listFile, list.join("\n"));
  await ffmpeg(["-f", "concat", "-safe", "0", "-i", listFile, "-t", String(seconds), "-c:a", "libmp3lame", "-b:a", "64k", out]);
}
