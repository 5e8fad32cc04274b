import { useState } from "preact/hooks";
import type { Commit, PendingChange } from "./edit-types.ts";
import type { SegmentEditing } from "./segment-list.tsx";
import { clock, withText, type Segment } from "./segments.ts";

const without = <T>(record: Readonly<Record<number, T>>, id: number) => {
  const { [id]: _, ...rest } = record;
  return rest;
};

/**
 * One segment's text edited in its box: opened, typed, saved as one edit through `commit` ("edit at 0:04"), or
 * cancelled. An edit shows only once saved; a segment whose save failed keeps its box, text and error. `unsaved`
 * says whether a box holds typed text or a save is in flight.
 */
export function useSegmentEditing(
  saved: { readonly current: readonly Segment[] },
  commit: Commit,
  waiting: { readonly current: PendingChange | null },
): { editing: SegmentEditing; unsaved: boolean } {
  const [drafts, setDrafts] = useState<Record<number, string>>({});
  const [saving, setSaving] = useState<Record<number, boolean>>({});
  const [errors, setErrors] = useState<Record<number, string>>({});

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

  const typed = Object.entries(drafts).some(([id, text]) => saved.current.find((s) => s.id === Number(id))?.text !== text);
  return { editing, unsaved: typed || Object.keys(saving).length > 0 };
}
