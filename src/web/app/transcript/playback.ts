import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { segmentAt, type Segment } from "./segments.ts";
import { usePlayerShortcuts } from "./use-player-shortcuts.ts";

export type Playback = {
  /** The element the player renders (null until it does). */
  media: { current: HTMLMediaElement | null };
  /** The player's ref callback: the hook listens to the element it is given. */
  attach(element: HTMLMediaElement | null): void;
  /** The index of the segment being played, -1 when none. */
  current: number;
  seek(ms: number): void;
  /** Plays from the segment's start and pauses at its end. */
  playSegment(segment: Segment): void;
};

/**
 * The player's state as the transcript needs it: which segment is playing (recomputed only when it changes, so
 * the list re-renders once per segment, not four times a second), seeking, playing one segment, and the
 * keyboard shortcuts (use-player-shortcuts.ts) on the whole page.
 */
export function usePlayback(segments: readonly Segment[]): Playback {
  const media = useRef<HTMLMediaElement | null>(null);
  // Also as state, so that the listeners are added when the element appears (the player comes after its URL).
  const [element, setElement] = useState<HTMLMediaElement | null>(null);
  const attach = useCallback((next: HTMLMediaElement | null) => {
    media.current = next;
    setElement(next);
  }, []);
  const [current, setCurrent] = useState(-1);
  // Where "play segment" stops; a ref, since the time listener and the frame loop read it.
  const stopAt = useRef<number | null>(null);
  const list = useRef(segments);
  list.current = segments;

  const follow = useCallback(() => {
    const element = media.current;
    if (!element) return;
    const ms = element.currentTime * 1000;
    if (stopAt.current !== null && ms >= stopAt.current) {
      element.pause();
      stopAt.current = null;
    }
    setCurrent(segmentAt(list.current, ms));
  }, []);

  useEffect(() => {
    if (!element) return;
    // timeupdate comes about four times a second; while a single segment plays, a frame loop stops it on time.
    let frame = 0;
    const loop = () => {
      follow();
      if (stopAt.current !== null && !element.paused) frame = requestAnimationFrame(loop);
    };
    const onPlay = () => {
      if (stopAt.current !== null) frame = requestAnimationFrame(loop);
    };
    const onPause = () => cancelAnimationFrame(frame);
    element.addEventListener("timeupdate", follow);
    element.addEventListener("seeked", follow);
    element.addEventListener("play", onPlay);
    element.addEventListener("pause", onPause);
    return () => {
      cancelAnimationFrame(frame);
      element.removeEventListener("timeupdate", follow);
      element.removeEventListener("seeked", follow);
      element.removeEventListener("play", onPlay);
      element.removeEventListener("pause", onPause);
    };
  }, [element, follow]);

  // After an edit the same time may fall in another segment's bounds (they are not edited here, but undo can swap arrays).
  useEffect(follow, [segments]);

  const seek = useCallback((ms: number) => {
    const element = media.current;
    if (!element) return;
    stopAt.current = null;
    element.currentTime = ms / 1000;
    setCurrent(segmentAt(list.current, ms));
  }, []);

  const playSegment = useCallback((segment: Segment) => {
    const element = media.current;
    if (!element) return;
    element.currentTime = segment.start / 1000;
    stopAt.current = Math.max(segment.end, segment.start);
    void element.play().catch(() => undefined);
  }, []);

  usePlayerShortcuts(media, stopAt, seek);

  return { media, attach, current, seek, playSegment };
}
