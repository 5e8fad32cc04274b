import { useEffect } from "preact/hooks";
import { playerAction } from "./shortcuts.ts";

/**
 * The player's keyboard shortcuts (shortcuts.ts says which) on the whole page: Space plays or pauses, the arrows
 * seek through `seek`, within the media's length. Playing or pausing by hand ends a "play segment" (`stopAt`).
 */
export function usePlayerShortcuts(media: { current: HTMLMediaElement | null }, stopAt: { current: number | null }, seek: (ms: number) => void): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const element = media.current;
      const target = event.target instanceof HTMLElement ? event.target : document.body;
      const type = target instanceof HTMLInputElement ? target.type : undefined;
      const action = playerAction(
        event.key,
        { tagName: target.tagName, isContentEditable: target.isContentEditable, type },
        {
          ctrl: event.ctrlKey,
          alt: event.altKey,
          meta: event.metaKey,
        },
      );
      if (!element || !action) return;
      event.preventDefault();
      if (action.kind === "toggle") {
        stopAt.current = null;
        if (element.paused) void element.play().catch(() => undefined);
        else element.pause();
      } else {
        const duration = Number.isFinite(element.duration) ? element.duration : Number.POSITIVE_INFINITY;
        seek(Math.min(duration, Math.max(0, element.currentTime + action.seconds)) * 1000);
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [seek]);
}
