import type { SharedTranscript } from "./shared-transcript.ts";

/** A segment's start for people: 1:02:03, or 02:03 under an hour. */
export function clock(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  const minutes = String(Math.floor((seconds % 3600) / 60)).padStart(2, "0");
  const rest = String(seconds % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${minutes}:${rest}` : `${minutes}:${rest}`;
}

/**
 * The transcript, read-only: each segment's start, speaker and text, and no control to change them. The
 * transcript page's own segment list (with its player) is the owner's; this one needs nothing but the segments.
 */
export function ReadOnlyTranscript({ segments }: { segments: SharedTranscript["segments"] }) {
  if (segments.length === 0) return <p class="muted">No transcript yet.</p>;
  return (
    <ol class="read-only-segments" aria-label="Transcript">
      {segments.map((segment, index) => (
        <li key={index}>
          <time>{clock(segment.start)}</time>
          <p>
            {segment.speaker && <strong class="speaker">{segment.speaker}: </strong>}
            {segment.text}
          </p>
        </li>
      ))}
    </ol>
  );
}
