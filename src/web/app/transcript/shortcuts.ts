/** What a key press asks of the player, or null when it is none of its shortcuts. */
export type PlayerAction = { kind: "toggle" } | { kind: "skip"; seconds: number };

/** Where the key press landed: what is focused decides whether a key is the page's or the control's own. */
export type KeyTarget = { tagName: string; isContentEditable: boolean; type?: string };

export const skipSeconds = 5;

/** Controls that use these keys themselves: typing, choosing, or a media element's own controls. */
function ownsKeys(target: KeyTarget): boolean {
  const tag = target.tagName.toUpperCase();
  if (target.isContentEditable || tag === "TEXTAREA" || tag === "SELECT" || tag === "AUDIO" || tag === "VIDEO") return true;
  return tag === "INPUT" && target.type !== "checkbox" && target.type !== "radio" && target.type !== "button";
}

/**
 * Space plays or pauses, ← and → move 5 s, except while typing or choosing (a text field, a select, the
 * media element's own controls) and with a modifier held (browser and system shortcuts). Space on a button
 * or link stays theirs too: it presses them, which keyboard users rely on.
 */
export function playerAction(key: string, target: KeyTarget, modifiers: { ctrl: boolean; alt: boolean; meta: boolean }): PlayerAction | null {
  if (modifiers.ctrl || modifiers.alt || modifiers.meta || ownsKeys(target)) return null;
  const tag = target.tagName.toUpperCase();
  if (key === " " && tag !== "BUTTON" && tag !== "A" && tag !== "SUMMARY" && tag !== "INPUT") return { kind: "toggle" };
  if (key === "ArrowLeft") return { kind: "skip", seconds: -skipSeconds };
  if (key === "ArrowRight") return { kind: "skip", seconds: skipSeconds };
  return null;
}

/** The playback speeds offered, 0.5× to 2×. */
export const speeds = [0.5, 0.75, 1, 1.25, 1.5, 2] as const;

/** Video containers play in a <video> element (which shows the picture); everything else in an <audio> element. */
export function isVideoFile(fileName: string): boolean {
  return /\.(mp4|m4v|mov|mkv|webm)$/i.test(fileName);
}
