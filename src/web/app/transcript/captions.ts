import type { Segment } from "./segments.ts";

const pad = (value: number, width: number) => String(value).padStart(width, "0");

/** WebVTT's `HH:MM:SS.mmm`. */
function cueTime(ms: number): string {
  const total = Math.max(0, Math.round(ms));
  return `${pad(Math.floor(total / 3_600_000), 2)}:${pad(Math.floor(total / 60_000) % 60, 2)}:${pad(Math.floor(total / 1000) % 60, 2)}.${pad(total % 1000, 3)}`;
}

/** WebVTT's text escapes; line breaks become spaces, since a blank line would end the cue. */
const escapeCue = (text: string) =>
  text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/\s*\n\s*/g, " ");

/**
 * The transcript as WebVTT captions for the player's <track>, made here from the segments on screen (the
 * track element cannot send the token the export needs, and edits show in the captions at once). Speakers
 * are voice spans, as in the API's vtt export.
 */
export function captionsOf(segments: readonly Segment[]): string {
  const cues = segments
    .filter((segment) => segment.text.trim() !== "")
    .map((segment) => {
      const voice = segment.speaker ? `<v ${escapeCue(segment.speaker)}>` : "";
      return `${cueTime(segment.start)} --> ${cueTime(Math.max(segment.end, segment.start))}\n${voice}${escapeCue(segment.text.trim())}`;
    });
  return `WEBVTT\n\n${cues.join("\n\n")}\n`;
}
