import { useState } from "preact/hooks";

/** Undo of the last edits, each undo saved like an edit. */
export function UndoButton({ label, undo }: { label: string | null; undo: () => Promise<string | null> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onClick = async () => {
    setBusy(true);
    setError(await undo());
    setBusy(false);
  };
  return (
    <div class="undo">
      <button type="button" onClick={onClick} disabled={busy || label === null} aria-busy={busy}>
        {label === null ? "Undo" : `Undo ${label}`}
      </button>
      {error && (
        <p class="field-error" role="alert">
          Not undone: {error}
        </p>
      )}
    </div>
  );
}
