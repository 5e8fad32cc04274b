import { useCallback, useRef, useState } from "preact/hooks";
import type { Commit, EditConflict, PendingChange } from "./edit-types.ts";
import { clock, type Segment } from "./segments.ts";

/** Where focus goes once a conflict is settled and no segment's Edit button is there to take it. */
export const resolvedOutcomeId = "edit-conflict-outcome";

export type ConflictState = {
  /** The change that met a newer transcript, until it is reapplied or discarded; read between renders. */
  waiting: { current: PendingChange | null };
  conflict: EditConflict | null;
  /** What the last reapply or discard did. */
  resolved: string | null;
  /** Holds `pending`, made on `before`, which met the `newer` transcript: the notice shows it until the user chooses. */
  meet(pending: PendingChange, before: readonly Segment[], newer: readonly Segment[]): void;
  setConflict(next: EditConflict | null | ((current: EditConflict | null) => EditConflict | null)): void;
  setResolved(said: string | null): void;
};

/** The change that met a newer transcript, and what became of the last one. */
export function useConflictState(): ConflictState {
  const waiting = useRef<PendingChange | null>(null);
  const [conflict, setConflict] = useState<EditConflict | null>(null);
  const [resolved, setResolved] = useState<string | null>(null);
  const meet = useCallback((pending: PendingChange, before: readonly Segment[], newer: readonly Segment[]) => {
    waiting.current = pending;
    setResolved(null);
    const { segment, label } = pending;
    const theirs = segment && (newer.find((s) => s.id === segment.id) ?? null);
    const at = clock((segment && before.find((s) => s.id === segment.id)?.start) ?? 0);
    setConflict((current) => ({
      serial: (current?.serial ?? 0) + 1,
      label,
      segment: segment && { id: segment.id, at, mine: segment.text, theirs: theirs?.text ?? null },
      busy: false,
      error: null,
    }));
  }, []);
  return { waiting, conflict, resolved, meet, setConflict, setResolved };
}

/** Focus after a settled conflict: the edited segment's Edit button, else the outcome said where the notice was. */
const focusAfter = (settled: PendingChange) =>
  requestAnimationFrame(() => (document.getElementById(`edit-${settled.segment?.id}`) ?? document.getElementById(resolvedOutcomeId))?.focus());

/** The user's two answers to a conflict: reapply the change on top of the newer transcript (through `commit`), or discard it. */
export function useConflictChoice(state: ConflictState, commit: Commit): { reapply(): Promise<void>; discard(): void } {
  const { waiting, setConflict, setResolved } = state;
  const reapply = useCallback(async () => {
    const settled = waiting.current;
    if (settled === null) return;
    waiting.current = null;
    setConflict((current) => current && { ...current, busy: true, error: null });
    const failure = await commit(settled.change, settled.undo, settled.label, settled.segment);
    if (failure === null) {
      setConflict(null);
      setResolved(`Your change (${settled.label}) is saved on the newer transcript.`);
      focusAfter(settled);
    } else if (waiting.current === null) {
      // Not a newer conflict (which commit has shown in its place) but a failed save: the choice stays open.
      waiting.current = settled;
      setConflict((current) => current && { ...current, busy: false, error: failure });
    }
  }, [commit]);

  const discard = useCallback(() => {
    const settled = waiting.current;
    if (settled === null) return;
    waiting.current = null;
    setConflict(null);
    setResolved(`Your change (${settled.label}) is discarded; the newer transcript stays.`);
    focusAfter(settled);
  }, []);
  return { reapply, discard };
}
