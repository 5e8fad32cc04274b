import { useState } from "preact/hooks";
import { countMatches, replaceAll } from "./find-replace.ts";
import type { Segment } from "./segments.ts";
import type { EditOutcome } from "./edit-types.ts";

export type FindReplaceProps = {
  segments: readonly Segment[];
  apply(change: (segments: readonly Segment[]) => Segment[], label: string): Promise<EditOutcome>;
};

/** Find and replace across the whole transcript, with the number of matches as one types; Replace all is one edit (one undo). */
export function FindReplace({ segments, apply }: FindReplaceProps) {
  const [query, setQuery] = useState("");
  const [replacement, setReplacement] = useState("");
  const [matchCase, setMatchCase] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ error: boolean; text: string } | null>(null);
  const matches = countMatches(segments, query, { matchCase });

  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (matches === 0) return;
    setBusy(true);
    const failure = await apply((all) => replaceAll(all, query, replacement, { matchCase }), `replace “${query}”`);
    setBusy(false);
    setOutcome(failure === null ? { error: false, text: `Replaced ${matches} × “${query}”.` } : { error: true, text: `Not replaced: ${failure}` });
  };

  return (
    <form class="find-replace" onSubmit={onSubmit} aria-labelledby="find-replace-title">
      <h2 id="find-replace-title" class="tool-title">
        Find and replace
      </h2>
      <div class="field">
        <label for="find-text">Find</label>
        <input id="find-text" type="search" value={query} onInput={(event) => setQuery(event.currentTarget.value)} aria-describedby="find-count" />
      </div>
      <div class="field">
        <label for="replace-text">Replace with</label>
        <input id="replace-text" type="text" value={replacement} onInput={(event) => setReplacement(event.currentTarget.value)} />
      </div>
      <label class="check">
        <input type="checkbox" checked={matchCase} onChange={(event) => setMatchCase(event.currentTarget.checked)} /> Match case
      </label>
      <p id="find-count" class="muted" aria-live="polite">
        {query === "" ? "" : matches === 1 ? "1 match" : `${matches} matches`}
      </p>
      <button type="submit" disabled={busy || matches === 0} aria-busy={busy}>
        Replace all
      </button>
      <p role={outcome?.error ? "alert" : "status"} class={outcome?.error ? "field-error" : "muted"}>
        {outcome?.text}
      </p>
    </form>
  );
}
