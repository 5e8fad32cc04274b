import { useEffect, useRef } from "preact/hooks";
import { resolvedOutcomeId } from "./edit-conflict-state.ts";
import type { TranscriptEdits } from "./edit-types.ts";

/**
 * The notice of a change that met a newer transcript (saved meanwhile in another tab or on another device): it says
 * so, shows the newer and the user's text of an edited segment, and offers to reapply the change on top of the
 * newer transcript or discard it. It takes focus when it appears, so a screen reader reads it and the keyboard is
 * next to its buttons; once the choice is made, what it did is said in its place.
 */
export function EditConflictNotice({ edits }: { edits: Pick<TranscriptEdits, "conflict" | "reapply" | "discard" | "resolved"> }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const { conflict } = edits;
  useEffect(() => {
    if (conflict) heading.current?.focus();
  }, [conflict?.serial]);

  if (!conflict) {
    return edits.resolved === null ? null : (
      <p id={resolvedOutcomeId} class="muted" role="status" tabIndex={-1}>
        {edits.resolved}
      </p>
    );
  }
  const { segment } = conflict;
  return (
    <section class="notice edit-conflict" aria-labelledby="edit-conflict-title">
      <h2 id="edit-conflict-title" class="tool-title" tabIndex={-1} ref={heading}>
        Changed elsewhere: your change is not saved yet
      </h2>
      <p>
        This transcript was changed in another tab or on another device after you opened it, so your change ({conflict.label}) was not saved over it. The newer
        transcript is shown below.
      </p>
      {segment && (
        <dl class="facts">
          <dt>Newer text at {segment.at}</dt>
          <dd>{segment.theirs ?? "(this segment is no longer in the transcript)"}</dd>
          <dt>Your text</dt>
          <dd>{segment.mine}</dd>
        </dl>
      )}
      {conflict.error && (
        <p class="field-error" role="alert">
          Not reapplied: {conflict.error}
        </p>
      )}
      <div class="actions">
        <button type="button" class="primary" onClick={edits.reapply} disabled={conflict.busy} aria-busy={conflict.busy}>
          Reapply my change
        </button>
        <button type="button" onClick={edits.discard} disabled={conflict.busy}>
          Discard my change
        </button>
      </div>
    </section>
  );
}
