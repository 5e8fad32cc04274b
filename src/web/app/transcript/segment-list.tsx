import type { RefObject } from "preact";
import { useEffect, useMemo, useRef } from "preact/hooks";
import { SegmentEditor } from "./segment-editor.tsx";
import { SegmentWords, UncertainWordsNote, wordStartOf } from "./segment-words.tsx";
import { uncertainWords } from "./timed-words.ts";
import { clock, type Segment } from "./segments.ts";

/** The editing side of the list: open editors with their text, saves in flight and failed ones, by segment id. */
export type SegmentEditing = {
  drafts: Readonly<Record<number, string>>;
  saving: Readonly<Record<number, boolean>>;
  errors: Readonly<Record<number, string>>;
  open(segment: Segment): void;
  change(id: number, text: string): void;
  save(id: number): void;
  cancel(id: number): void;
};

export type SegmentListProps = {
  segments: readonly Segment[];
  /** The index of the segment being played (-1: none): highlighted, marked aria-current and kept in view. */
  current?: number;
  /** Absent without a player: the segments are then plain text. `ms`: the clicked word's start, else the segment's. */
  onSeek?: (segment: Segment, ms: number) => void;
  onPlaySegment?: (segment: Segment) => void;
  /** No editing controls (the public share page). */
  readOnly?: boolean;
  editing?: SegmentEditing;
};

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** "at 1:05 (Ann)": what tells one segment's controls from another's for a screen reader. */
const where = (segment: Segment) => `at ${clock(segment.start)}${segment.speaker ? ` (${segment.speaker})` : ""}`;

/** Keeps the segment being played in view as it moves on. */
function useCurrentInView(list: RefObject<HTMLOListElement | null>, segments: readonly Segment[], current: number) {
  useEffect(() => {
    const segment = segments[current];
    if (!segment) return;
    // Not while the reader is typing somewhere: the box would slide away under the caret.
    const active = document.activeElement;
    if (active instanceof HTMLTextAreaElement || active instanceof HTMLInputElement) return;
    list.current?.querySelector(`#segment-${segment.id}`)?.scrollIntoView({ block: "nearest", behavior: reducedMotion() ? "auto" : "smooth" });
  }, [current]);
}

/** The segment's text: word by word where the engine timed its words (segment-words.tsx), else as one piece. */
const textOf = (segment: Segment) =>
  segment.words && segment.words.length > 0 ? <SegmentWords text={segment.text} words={segment.words} /> : <span class="segment-text">{segment.text}</span>;

/**
 * The transcript: one item per segment with its time and speaker, its text as a button that seeks the player
 * there (so its accessible name is the text; a click on one of its timed words seeks to that word), a button that
 * plays just that segment, and, unless read-only, an Edit button (or a double click) that turns the text into a box.
 */
export function SegmentList({ segments, current = -1, onSeek, onPlaySegment, readOnly = false, editing }: SegmentListProps) {
  const list = useRef<HTMLOListElement>(null);
  useCurrentInView(list, segments, current);
  const uncertain = useMemo(() => uncertainWords(segments), [segments]);

  return (
    <>
      <UncertainWordsNote count={uncertain} />
      <ol class="segments" ref={list}>
        {segments.map((segment, index) => {
          const draft = readOnly ? undefined : editing?.drafts[segment.id];
          const playing = index === current;
          const meta = (
            <span class="segment-meta">
              <span class="segment-time">{clock(segment.start)}</span>
              {segment.speaker && <span class="segment-speaker">{segment.speaker}</span>}
            </span>
          );
          return (
            <li key={segment.id} id={`segment-${segment.id}`} class={playing ? "segment current" : "segment"}>
              {draft !== undefined && editing ? (
                <SegmentEditor
                  id={segment.id}
                  label={where(segment)}
                  text={draft}
                  saving={editing.saving[segment.id] ?? false}
                  error={editing.errors[segment.id]}
                  onChange={(text) => editing.change(segment.id, text)}
                  onSave={() => editing.save(segment.id)}
                  onCancel={() => editing.cancel(segment.id)}
                />
              ) : onSeek ? (
                <button
                  type="button"
                  class="segment-seek"
                  aria-current={playing ? "true" : undefined}
                  onClick={(event) => onSeek(segment, wordStartOf(event.target) ?? segment.start)}
                  onDblClick={readOnly || !editing ? undefined : () => editing.open(segment)}
                >
                  {meta}
                  {textOf(segment)}
                </button>
              ) : (
                <p class="segment-seek" aria-current={playing ? "true" : undefined}>
                  {meta}
                  {textOf(segment)}
                </p>
              )}
              {draft === undefined && (
                <div class="segment-actions">
                  {onPlaySegment && (
                    <button type="button" class="small" aria-label={`Play segment ${where(segment)}`} onClick={() => onPlaySegment(segment)}>
                      ▶ Play
                    </button>
                  )}
                  {!readOnly && editing && (
                    <button
                      type="button"
                      class="small"
                      id={`edit-${segment.id}`}
                      aria-label={`Edit segment ${where(segment)}`}
                      onClick={() => editing.open(segment)}
                    >
                      Edit
                    </button>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ol>
    </>
  );
}
