/**
 * The level meter's and the timer's figures, from the analyser's samples: pure, so they are tested without a
 * browser.
 */

/** Below this the input is taken as silence: a quiet room through a laptop's microphone sits around -60 dBFS. */
const floorDb = -60;

/**
 * How loud a block of samples (-1…1) is, from 0 (silence, or under -60 dBFS) to 1 (full scale): the RMS on a
 * decibel scale, since the ear (and speech at a normal distance, around -30 to -15 dBFS) follows decibels, and a
 * linear meter would hardly move for a voice.
 */
export function levelOf(samples: ArrayLike<number>): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  const rms = Math.sqrt(sum / samples.length);
  if (rms <= 0) return 0;
  const db = 20 * Math.log10(rms);
  return Math.min(1, Math.max(0, (db - floorDb) / -floorDb));
}

/**
 * The meter's text alternative: what a sighted user reads from the bar, in words that say whether to act
 * (nothing heard: check the microphone; too loud: move back).
 */
export function levelWords(level: number): string {
  if (level < 0.15) return "no sound";
  if (level < 0.45) return "quiet";
  if (level < 0.9) return "good";
  return "too loud";
}

/** A recording's length as a clock: "0:07", "12:34", "1:02:03". */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

/** The same length in words, for the live region: "7 seconds", "1 minute 5 seconds". */
export function spokenLength(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const parts: string[] = [];
  const unit = (count: number, name: string) => parts.push(`${count} ${name}${count === 1 ? "" : "s"}`);
  const [hours, minutes, rest] = [Math.floor(whole / 3600), Math.floor((whole % 3600) / 60), whole % 60];
  if (hours > 0) unit(hours, "hour");
  if (minutes > 0) unit(minutes, "minute");
  if (rest > 0 || whole === 0) unit(rest, "second");
  return parts.join(" ");
}
