import { useCallback, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { useLeaveGuard } from "../ui/leave-guard.ts";
import { useConflictChoice, useConflictState } from "./edit-conflict-state.ts";
import type { Commit, Task, TranscriptEdits } from "./edit-types.ts";
import { useSegmentEditing } from "./use-segment-editing.ts";
import { useStoredTranscript } from "./stored-transcript.ts";
import { popUndo, pushUndo, type UndoStep } from "./undo-stack.ts";

/** Said by the tools whose change met a newer transcript: the notice above the transcript says the rest. */
const conflictOutcome = "the transcript was changed elsewhere. Choose above whether to reapply your change or discard it.";
const resolveFirst = "first reapply or discard your change that met a newer transcript (above).";
export const leaveQuestion = "You have changes to this transcript that are not saved. Leave the page and lose them?";

/**
 * The transcript's edits, every one saved through `PATCH /api/tasks/{id}` with the full `segments` array (ids
 * kept) and the version it was made on (`If-Match`), which answers with the task and its new version: `onSaved`
 * hands the task to the page (the export version, history and extras follow it). An edit shows only once saved;
 * a segment whose save failed keeps its box, text and error.
 *
 * A save refused because the task changed elsewhere (412, another tab or device) reads the task again. If its
 * transcript is still the one the edit was made on (only the status, summary or an export moved the version),
 * the edit is saved on the newer version as it was made. Otherwise the newer transcript is shown, and the edit
 * waits (`conflict`) for the user to reapply it on top or discard it; the undo history, made of transcripts from
 * before the other change, is dropped, since undoing would silently take that change back.
 *
 * Leaving the page while an open editor holds unsaved text, a save is in flight or a change waits asks first.
 */
export function useTranscriptEdits(task: Task, onSaved: (task: Task) => void): TranscriptEdits {
  const { segments, saved, adopt, store } = useStoredTranscript(task, onSaved);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const [stack, setStack] = useState<UndoStep[]>([]);
  const stackRef = useRef(stack);
  stackRef.current = stack;
  const conflicts = useConflictState();
  const { waiting, meet } = conflicts;

  const commit: Commit = useCallback(
    async (change, undo, label, segment = null) => {
      const run = queue.current.then(async () => {
        if (waiting.current !== null) throw new ApiError(412, resolveFirst);
        const before = saved.current;
        const answer = await store(change, before);
        if (answer === "conflict") {
          setStack([]);
          meet({ change, undo, label, segment }, before, saved.current);
          throw new ApiError(412, conflictOutcome);
        }
        adopt(answer);
        if (undo !== null) setStack((current) => pushUndo(current, { before, label: undo }));
      });
      queue.current = run.catch(() => undefined);
      try {
        await run;
        return null;
      } catch (error) {
        return ApiError.of(error).message;
      }
    },
    [store, adopt],
  );
  const { reapply, discard } = useConflictChoice(conflicts, commit);
  const { editing, unsaved } = useSegmentEditing(saved, commit, waiting);

  const undo = useCallback(async () => {
    const top = popUndo(stackRef.current);
    if (!top) return null;
    const failure = await commit(() => top.step.before, null, `undo ${top.step.label}`);
    // Only once the server has the older transcript; a failed undo can be tried again.
    if (failure === null) setStack((current) => current.filter((step) => step !== top.step));
    return failure;
  }, [commit]);

  useLeaveGuard(unsaved || conflicts.conflict !== null, leaveQuestion);

  return {
    segments,
    editing,
    apply: (change, label) => commit(change, label, label),
    undoLabel: stack.at(-1)?.label ?? null,
    undo,
    conflict: conflicts.conflict,
    reapply,
    discard,
    resolved: conflicts.resolved,
  };
}
