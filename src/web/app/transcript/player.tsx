import { useEffect, useState } from "preact/hooks";
import { captionsOf } from "./captions.ts";
import type { Playback } from "./playback.ts";
import type { Segment } from "./segments.ts";
import { speeds } from "./shortcuts.ts";

/**
 * A signed media URL as a path on this origin: the API signs it under PUBLIC_URL, which may not be the origin
 * the page was opened at, and the page's CSP allows media from this origin only.
 */
export function mediaPath(url: string): string {
  const parsed = new URL(url, location.href);
  return `${parsed.pathname}${parsed.search}`;
}

export type PlayerProps = {
  /** A URL the element can load by itself (media elements send no token): `GET /api/tasks/{id}/audio-url`'s, or the share page's `audio_url`. */
  src: string;
  video: boolean;
  playback: Playback;
  /** What is playing, for the element's accessible name. */
  title: string;
  /** The transcript, as the player's captions. */
  segments: readonly Segment[];
};

/** The segments as a captions file at a blob: URL (the page's CSP allows media from blob:), made again after each edit. */
function useCaptions(segments: readonly Segment[]): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(new Blob([captionsOf(segments)], { type: "text/vtt" }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [segments]);
  return url;
}

/**
 * The native player (the browser's own controls: keyboard and screen-reader support come with them), streamed
 * with Range requests from the signed audio URL, and its speed.
 */
export function Player({ src, video, playback, title, segments }: PlayerProps) {
  const captions = useCaptions(segments);
  const [speed, setSpeed] = useState("1");
  const changeSpeed = (event: Event) => {
    const value = (event.currentTarget as HTMLSelectElement).value;
    setSpeed(value);
    if (playback.media.current) playback.media.current.playbackRate = Number(value);
  };
  const bind = playback.attach;
  return (
    <div class="player">
      {video ? (
        <video ref={bind} src={src} controls preload="metadata" aria-label={`Video: ${title}`}>
          <track kind="captions" src={captions ?? undefined} srclang="und" label="Transcript" default />
        </video>
      ) : (
        <audio ref={bind} src={src} controls preload="metadata" aria-label={`Audio: ${title}`}>
          <track kind="captions" src={captions ?? undefined} srclang="und" label="Transcript" default />
        </audio>
      )}
      <div class="player-options">
        <label for="playback-speed">Speed</label>
        <select id="playback-speed" onChange={changeSpeed} value={speed}>
          {speeds.map((speed) => (
            <option key={speed} value={String(speed)}>
              {speed}×
            </option>
          ))}
        </select>
        <p class="muted player-keys">
          <kbd>Space</kbd> play or pause · <kbd>←</kbd> <kbd>→</kbd> 5 s
        </p>
      </div>
    </div>
  );
}
