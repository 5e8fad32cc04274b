/**
 * Sentences with made-up names (none in PocketSphinx's dictionary), spoken by flite as 16 kHz mono WAV: the vocabulary
 * test's and bench's clips. flite, not espeak-ng: PocketSphinx recognises almost nothing of espeak-ng's voice (the
 * first sentence below comes out as "the dull and a you are not where are you too"), and flite's voices are CMU's
 * ARCTIC speakers, close enough to what its acoustic model learned. `npm test` and `npm run bench` install flite.
 */
import { join } from "node:path";

export type NamedSentence = { text: string; names: string[] };

export const namedSentences: readonly NamedSentence[] = [
  { text: "Please call Zorbalind tomorrow about the Quexley contract.", names: ["Zorbalind", "Quexley"] },
  { text: "The meeting with doctor Vantrelli moved to Thursday afternoon.", names: ["Vantrelli"] },
  { text: "Our new product Glimmerfax ships to customers next month.", names: ["Glimmerfax"] },
  { text: "Send the report to Marisandra before the board meets.", names: ["Marisandra"] },
  { text: "We visited Krelbourne and Ostravik during the summer.", names: ["Krelbourne", "Ostravik"] },
];

/** flite's voices that PocketSphinx follows best on these sentences: rms first. */
export const fliteVoices = ["rms", "slt", "awb", "kal16"] as const;

export const fliteAvailable = () => Bun.which("flite") !== null && Bun.which("ffmpeg") !== null;

/** The sentence spoken by `voice`, resampled to what PocketSphinx reads (16 kHz mono), in `dir`. */
export async function speakWithFlite(text: string, voice: string, dir: string, name: string): Promise<string> {
  const raw = join(dir, `${name}.flite.wav`);
  const wav = join(dir, `${name}.wav`);
  for (const command of [
    ["flite", "-voice", voice, "-t", text, "-o", raw],
    ["ffmpeg", "-loglevel", "error", "-y", "-i", raw, "-ar", "16000", "-ac", "1", wav],
  ]) {
    const child = Bun.spawn(command, { stdout: "ignore", stderr: "pipe" });
    if ((await child.exited) !== 0) throw new Error(`${command[0]} failed: ${await new Response(child.stderr).text()}`);
  }
  return wav;
}
