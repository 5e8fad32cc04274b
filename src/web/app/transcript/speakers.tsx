import { useState } from "preact/hooks";
import { speakersOf, withSpeakerRenamed, type Segment } from "./segments.ts";
import type { EditOutcome } from "./edit-types.ts";

export type SpeakersProps = {
  segments: readonly Segment[];
  apply(change: (segments: readonly Segment[]) => Segment[], label: string): Promise<EditOutcome>;
};

/** One speaker's new name: set on every segment of theirs, so every export carries it. */
function SpeakerRename({ speaker, index, segments, apply }: SpeakersProps & { speaker: string; index: number }) {
  const [name, setName] = useState(speaker);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const fieldId = `speaker-name-${index}`;
  const trimmed = name.trim();
  const onSubmit = async (event: SubmitEvent) => {
    event.preventDefault();
    if (trimmed === "" || trimmed === speaker) return;
    setBusy(true);
    const failure = await apply((all) => withSpeakerRenamed(all, speaker, trimmed), `rename ${speaker}`);
    setBusy(false);
    setError(failure);
  };
  const count = segments.filter((segment) => segment.speaker === speaker).length;
  return (
    <form class="speaker-rename" onSubmit={onSubmit}>
      <label for={fieldId}>
        Name for {speaker} <span class="muted">({count === 1 ? "1 segment" : `${count} segments`})</span>
      </label>
      <div class="inline-field">
        <input
          id={fieldId}
          type="text"
          value={name}
          maxLength={255}
          required
          onInput={(event) => setName(event.currentTarget.value)}
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? `${fieldId}-error` : undefined}
        />
        <button type="submit" disabled={busy || trimmed === "" || trimmed === speaker} aria-busy={busy}>
          Rename
        </button>
      </div>
      {error && (
        <p id={`${fieldId}-error`} class="field-error" role="alert">
          Not renamed: {error}
        </p>
      )}
    </form>
  );
}

/** The transcript's speakers, each renamable everywhere at once. */
export function Speakers({ segments, apply }: SpeakersProps) {
  const speakers = speakersOf(segments);
  return (
    <section class="speakers" aria-labelledby="speakers-title">
      <h2 id="speakers-title" class="tool-title">
        Speakers
      </h2>
      {speakers.length === 0 ? (
        <p class="muted">No speakers are marked in this transcript.</p>
      ) : (
        speakers.map((speaker, index) => <SpeakerRename key={speaker} speaker={speaker} index={index} segments={segments} apply={apply} />)
      )}
    </section>
  );
}
