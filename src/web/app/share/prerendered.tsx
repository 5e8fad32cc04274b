import type { VNode } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

/**
 * The share page as the server drew it (`#prerendered`, src/tasks/share-page.ts): the transcript in plain HTML, for
 * link previews and readers without script. Ours only when it shows this task: a page reached by navigating inside
 * the app has none, and it is taken once.
 */
function takePrerendered(taskId: number): HTMLElement | null {
  const drawn = document.getElementById("prerendered");
  if (!drawn) return null;
  if (drawn.querySelector(`[data-share-task="${taskId}"]`) === null) {
    drawn.remove();
    return null;
  }
  drawn.removeAttribute("id");
  return drawn;
}

/**
 * While the app loads the transcript, the server's drawing of it stays in view, moved into the page's place (before
 * the first paint, so nothing jumps); `fallback` where there is none. When this is replaced by the app's own view,
 * the drawing goes with it, in the same update: the two are never on the page together.
 */
export function Prerendered({ taskId, fallback }: { taskId: number; fallback: VNode }) {
  const [drawn] = useState(() => takePrerendered(taskId));
  const slot = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (drawn && slot.current) slot.current.appendChild(drawn);
    return () => drawn?.remove();
  }, [drawn]);
  return drawn ? <div ref={slot} /> : fallback;
}
