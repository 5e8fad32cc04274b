import { useLayoutEffect, useRef } from "preact/hooks";

export type SegmentEditorProps = {
  id: number;
  /** Names the segment for the field's label: its time and speaker. */
  label: string;
  text: string;
  saving: boolean;
  /** Why the last save failed; the text stays in the box and Save becomes Retry. */
  error: string | undefined;
  onChange(text: string): void;
  onSave(): void;
  onCancel(): void;
};

/**
 * A segment's text in a box. Ctrl+Enter (⌘+Enter) saves and Escape cancels; a failed save keeps every typed
 * character and says why, next to the box, with a Retry.
 */
export function SegmentEditor({ id, label, text, saving, error, onChange, onSave, onCancel }: SegmentEditorProps) {
  const box = useRef<HTMLTextAreaElement>(null);
  useLayoutEffect(() => box.current?.focus(), []);
  const fieldId = `segment-text-${id}`;
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      onSave();
    } else if (event.key === "Escape") {
      event.preventDefault();
      onCancel();
    }
  };
  return (
    <div class="segment-editor">
      <label for={fieldId}>Text {label}</label>
      <textarea
        ref={box}
        id={fieldId}
        value={text}
        rows={3}
        onInput={(event) => onChange(event.currentTarget.value)}
        onKeyDown={onKeyDown}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={error ? `${fieldId}-error` : undefined}
      />
      {error && (
        <p id={`${fieldId}-error`} class="field-error" role="alert">
          Not saved: {error} Your text is kept here; try again.
        </p>
      )}
      <div class="segment-editor-actions">
        <button type="button" class="primary" onClick={onSave} disabled={saving} aria-busy={saving}>
          {saving ? "Saving…" : error ? "Retry" : "Save"}
        </button>
        <button type="button" onClick={onCancel} disabled={saving}>
          Cancel
        </button>
      </div>
    </div>
  );
}
