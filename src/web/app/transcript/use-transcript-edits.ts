import { useCallback, useRef, useState } from "preact/hooks";
import { ApiError, type components } from "../api.ts";
import { clock, toPatch, withText, type Segment } from "./segments.ts";
import type { SegmentEditing } from "./segment-list.tsx";
import { popUndo, pushUndo, type UndoStep } from "./undo-stack.ts";
import { fetchTask, saveTask, versionOf } from "./task-version.ts";
import { useLeaveGuard } from "../ui/leave-guard.ts";

export type Task = components["schemas"]["Task"];

/** What an edit of the whole transcript came to: null when saved, else why not (shown where it was asked for). */
export type EditOutcome = string | null;

type Change = (segments: readonly Segment[]) => readonly Segment[];

/**
 * A change that was made on an older version of the transcript than the server has, whose text differs: the newer
 * text is shown, and the change waits for the user to reapply it on top or discard it. `serial` tells one such
 * conflict from the next (the notice takes focus once per conflict).
 */
export type EditConflict = {
  serial: number;
  /** What the change was: "edit at 0:04", "replace “tomato”". */
  label: string;
  /** For one segment's edit: where it is, the user's text and the newer text (null: the segment is gone). */
  segment: { id: number; at: string; mine: string; theirs: string | null } | null;
  busy: boolean;
  /** Why the last reapply failed (not a conflict: the connection, the server). */
  error: string | null;
};

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
  /** The change that met a newer transcript, waiting for reapply or discard; null when none. */
  conflict: EditConflict | null;
  reapply(): Promise<void>;
  discard(): void;
  /** What the last reapply or discard did, said where the notice was. */
  resolved: string | null;
};

/** Said by the tools whose change met a newer transcript: the notice above the transcript says the rest. */
const conflictOutcome = "the transcript was changed elsewhere. Choose above whether to reapply your change or discard it.";
const resolveFirst = "first reapply or discard your change that met a newer transcript (above).";
export const leaveQuestion = "You have changes to this transcript that are not saved. Leave the page and lose them?";
/** Where focus goes once a conflict is settled and no segment's Edit button is there to take it. */
export const resolvedOutcomeId = "edit-conflict-outcome";

const sameSegments = (a: readonly Segment[], b: readonly Segment[]) => JSON.stringify(toPatch(a)) === JSON.stringify(toPatch(b));

const without = <T>(record: Readonly<Record<number, T>>, id: number) => {
  const { [id]: _, ...rest } = record;
  return rest;
};

type Waiting = { change: Change; undo: string | null; label: string; segment: { id: number; text: string } | null };

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
  const taskId = task.id;
  const initial = task.segments ?? [];
  const [segments, setSegments] = useState<readonly Segment[]>(initial);
  const saved = useRef<readonly Segment[]>(initial);
  const version = useRef<string | null>(versionOf(task));
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const [stack, setStack] = useState<UndoStep[]>([]);
  const stackRef = useRef(stack);
  stackRef.current = stack;
  const [drafts, setDrafts] = useState<Record<number, string>>({});
  const [saving, setSaving] = useState<Record<number, boolean>>({});
  const [errors, setErrors] = useState<Record<number, string>>({});
  const waiting = useRef<Waiting | null>(null);
  const [conflict, setConflict] = useState<EditConflict | null>(null);
  const [resolved, setResolved] = useState<string | null>(null);

  /** The server's newer task: its transcript replaces the one shown, and its version is the one edits are made on from now. */
  const adopt = useCallback(
    (newer: Task) => {
      const after = newer.segments ?? [];
      saved.current = after;
      version.current = versionOf(newer);
      setSegments(after);
      onSaved(newer);
    },
    [onSaved],
  );

  /**
   * PATCHes what `change` makes of `before` on the version it was made on; after a 412, again on the newer version
   * while the newer transcript is still `before`. "conflict" when it is not: the newer task is adopted.
   */
  const store = useCallback(
    async (change: Change, before: readonly Segment[]): Promise<Task | "conflict"> => {
      const body = { segments: toPatch(change(before)) };
      let known = version.current;
      for (let attempt = 1; attempt <= 3; attempt++) {
        // Without a known version (a task object not read with its ETag) the version is read first, the same way.
        if (known === null || attempt > 1) {
          const newer = await fetchTask(taskId);
          if (!sameSegments(newer.segments ?? [], before)) {
            adopt(newer);
            return "conflict";
          }
          known = versionOf(newer);
          version.current = known;
          onSaved(newer);
        }
        try {
          return await saveTask(taskId, body, known);
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 412)) throw error;
        }
      }
      throw new ApiError(412, "The task keeps changing elsewhere; try again in a moment.");
    },
    [taskId, adopt, onSaved],
  );

  const commit = useCallback(
    async (change: Change, undo: string | null, label: string, segment: Waiting["segment"] = null): Promise<EditOutcome> => {
      const run = queue.current.then(async () => {
        if (waiting.current !== null) throw new ApiError(412, resolveFirst);
        const before = saved.current;
        const answer = await store(change, before);
        if (answer === "conflict") {
          waiting.current = { change, undo, label, segment };
          setStack([]);
          setResolved(null);
          const theirs = segment && (saved.current.find((s) => s.id === segment.id) ?? null);
          const at = clock((segment && before.find((s) => s.id === segment.id)?.start) ?? 0);
          setConflict((current) => ({
            serial: (current?.serial ?? 0) + 1,
            label,
            segment: segment && { id: segment.id, at, mine: segment.text, theirs: theirs?.text ?? null },
            busy: false,
            error: null,
          }));
          throw new ApiError(412, conflictOutcome);
        }
        const after: readonly Segment[] = answer.segments ?? [];
        saved.current = after;
        version.current = versionOf(answer);
        setSegments(after);
        if (undo !== null) setStack((current) => pushUndo(current, { before, label: undo }));
        onSaved(answer);
      });
      queue.current = run.catch(() => undefined);
      try {
        await run;
        return null;
      } catch (error) {
        return ApiError.of(error).message;
      }
    },
    [store, onSaved],
  );

  /** Focus after a settled conflict: the edited segment's Edit button, else the outcome said where the notice was. */
  const focusAfter = (settled: Waiting) =>
    requestAnimationFrame(() => (document.getElementById(`edit-${settled.segment?.id}`) ?? document.getElementById(resolvedOutcomeId))?.focus());

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
      const label = `edit at ${clock(segment.start)}`;
      const failure = text === segment.text ? null : await commit((all) => withText(all, id, text), label, label, { id, text });
      setSaving((current) => without(current, id));
      // Saved, or waiting in the conflict notice, which now holds the text: the box closes either way.
      if (failure !== null && waiting.current?.segment?.id !== id) {
        setErrors((current) => ({ ...current, [id]: failure }));
        return;
      }
      setErrors((current) => without(current, id));
      setDrafts((current) => without(current, id));
      // Back to the segment's Edit button, so the keyboard carries on from where it was (the notice takes focus on a conflict).
      if (failure === null) requestAnimationFrame(() => document.getElementById(`edit-${id}`)?.focus());
    },
  };

  const undo = useCallback(async (): Promise<EditOutcome> => {
    const top = popUndo(stackRef.current);
    if (!top) return null;
    const failure = await commit(() => top.step.before, null, `undo ${top.step.label}`);
    // Only once the server has the older transcript; a failed undo can be tried again.
    if (failure === null) setStack((current) => current.filter((step) => step !== top.step));
    return failure;
  }, [commit]);

  const typed = Object.entries(drafts).some(([id, text]) => saved.current.find((s) => s.id === Number(id))?.text !== text);
  useLeaveGuard(typed || conflict !== null || Object.keys(saving).length > 0, leaveQuestion);

  return {
    segments,
    editing,
    apply: (change, label) => commit(change, label, label),
    undoLabel: stack.at(-1)?.label ?? null,
    undo,
    conflict,
    reapply,
    discard,
    resolved,
  };
}
