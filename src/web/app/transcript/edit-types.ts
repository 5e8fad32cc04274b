import type { components } from "../api.ts";
import type { SegmentEditing } from "./segment-list.tsx";
import type { Segment } from "./segments.ts";

export type Task = components["schemas"]["Task"];

/** What an edit of the whole transcript came to: null when saved, else why not (shown where it was asked for). */
export type EditOutcome = string | null;

/** An edit, as what it makes of the transcript it is applied to. */
export type Change = (segments: readonly Segment[]) => readonly Segment[];

/** A change that met a newer transcript, kept to be reapplied: with its undo label, its label and the segment it edited. */
export type PendingChange = { change: Change; undo: string | null; label: string; segment: { id: number; text: string } | null };

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

/** Commits a change as one edit: saved with `undo` as its undo step's label (null: none), or met a newer transcript. */
export type Commit = (change: Change, undo: string | null, label: string, segment?: PendingChange["segment"]) => Promise<EditOutcome>;
