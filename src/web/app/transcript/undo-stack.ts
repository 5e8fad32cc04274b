import type { Segment } from "./segments.ts";

/** One undoable edit: the transcript as it was before it, and what it was, for the Undo button's name. */
export type UndoStep = { before: readonly Segment[]; label: string };

/** How many edits can be undone: the last 20, enough to back out of a slip without keeping every version in memory. */
export const undoDepth = 20;

/** The stack after an edit: the step on top, the oldest dropped past `undoDepth`. */
export function pushUndo(stack: readonly UndoStep[], step: UndoStep, depth: number = undoDepth): UndoStep[] {
  return [...stack, step].slice(-depth);
}

/** The step to undo and the stack without it; null when there is nothing to undo. */
export function popUndo(stack: readonly UndoStep[]): { step: UndoStep; rest: UndoStep[] } | null {
  const step = stack.at(-1);
  return step ? { step, rest: stack.slice(0, -1) } : null;
}
