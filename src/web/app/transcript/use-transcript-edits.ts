import { useCallback, useRef, useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { clock, toPatch, withText, type Segment } from "./segments.ts";
import type { SegmentEditing } from "./segment-list.tsx";
import { popUndo, pushUndo, type UndoStep } from "./undo-stack.ts";

export type Task = components["schemas"]["Task"];

/** What an edit of the whole transcript came to: null when saved, else why not (shown where it was asked for). */
export type EditOutcome = string | null;

export type TranscriptEdits = {
  segments: readonly Segment[];
  editing: SegmentEditing;
  /**
   * Saves the transcript `change` makes of the current one as one edit (one PATCH, one undo step). Edits run
   * one after another, each from the transcript the previous one saved, so two quick edits never undo each other.
   */
  apply(change: (segments: readonly Segment[]) => Segment[], label: string): Promise<EditOutcome>;
  /** The label of the edit Undo would take back, or null. */
  undoLabel: string | null;
  undo(): Promise<EditOutcome>;
};

/**
 * The transcript's edits, every one saved through `PATCH /api/tasks/{id}` with the full `segments` array (ids
 * kept), which answers with the task: `onSaved` hands it to the page (the export version, history and
 * extras follow it). An edit shows only once saved; a segment whose save failed keeps its box, text and error.
 */
export function useTranscriptEdits(taskId: number, initial: readonly Segment[], onSaved: (task: Task) => void): TranscriptEdits {
  const [segments, setSegments] = useState<readonly Segment[]>(initial);
  const saved = useRef<readonly Segment[]>(initial);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const [stack, setStack] = useState<UndoStep[]>([]);
  const stackRef = useRef(stack);
  stackRef.current = stack;
  const [drafts, setDrafts] = useState<Record<number, string>>({});
  const [saving, setSaving] = useState<Record<number, boolean>>({});
  const [errors, setErrors] = useState<Record<number, string>>({});

  const commit = useCallback(
    async (change: (segments: readonly Segment[]) => readonly Segment[], undo: string | null): Promise<EditOutcome> => {
      const run = queue.current.then(async () => {
        const before = saved.current;
        const next = change(before);
        const task = await call(api.PATCH("/api/tasks/{id}", { params: { path: { id: taskId } }, body: { segments: toPatch(next) } }));
        const after: readonly Segment[] = task.segments ?? [];
        saved.current = after;
        setSegments(after);
        if (undo !== null) setStack((current) => pushUndo(current, { before, label: undo }));
        onSaved(task);
      });
      queue.current = run.catch(() => undefined);
      try {
        await run;
        return null;
      } catch (error) {
        return ApiError.of(error).message;
      }
    },
    [taskId, onSaved],
  );

  const without = <T>(record: Record<number, T>, id: number) => {
    const { [id]: _, ...rest } = record;
    return rest;
  };

  const editing: SegmentEditing = {
    drafts,
    saving,
    errors,
    open: (segment) => setDrafts((current) => (segment.id in current ? current : { ...current, [segment.id]: segment.text })),
    change: (id, text) => setDrafts((current) => ({ ...current, [id]: text })),
    cancel: (id) => {
      setDrafts((current) => without(current, id));
      setErrors((current) => without(current, id));
      requestAnimationFrame(() => document.getElementById(`edit-${id}`)?.focus());
    },
    save: async (id) => {
      const text = drafts[id];
      const segment = saved.current.find((s) => s.id === id);
      if (text === undefined || !segment) return;
      setSaving((current) => ({ ...current, [id]: true }));
      const failure = text === segment.text ? null : await commit((all) => withText(all, id, text), `edit at ${clock(segment.start)}`);
      setSaving((current) => without(current, id));
      if (failure !== null) {
        setErrors((current) => ({ ...current, [id]: failure }));
        return;
      }
      setErrors((current) => without(current, id));
      setDrafts((current) => without(current, id));
      // Back to the segment's Edit button, so the keyboard carries on from where it was.
      requestAnimationFrame(() => document.getElementById(`edit-${id}`)?.focus());
    },
  };

  const undo = useCallback(async (): Promise<EditOutcome> => {
    const top = popUndo(stackRef.current);
    if (!top) return null;
    const failure = await commit(() => top.step.before, null);
    // Only once the server has the older transcript; a failed undo can be tried again.
    if (failure === null) setStack((current) => current.filter((step) => step !== top.step));
    return failure;
  }, [commit]);

  return { segments, editing, apply: commit, undoLabel: stack.at(-1)?.label ?? null, undo };
}
