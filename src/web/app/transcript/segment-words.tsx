import { Component } from "preact";
import type { Word } from "./segments.ts";
import { lowConfidence, percent, shownTexts } from "./timed-words.ts";

/**
 * The start (ms) of the word an event happened on, read from its `data-start`: one listener on the segment for all its
 * words (a transcript holds tens of thousands) rather than a handler each.
 */
export function wordStartOf(target: EventTarget | null): number | null {
  if (!(target instanceof Element)) return null;
  const word = target.closest<HTMLElement>("[data-start]");
  const start = word ? Number(word.dataset.start) : Number.NaN;
  return Number.isFinite(start) ? start : null;
}

type SegmentWordsProps = { text: string; words: readonly Word[] };

/**
 * A segment's text as one element per timed word, each carrying its start for a click to seek to. A word of low
 * confidence is a `<mark>` with a dotted underline and a tint (not colour alone) and a title that gives its
 * confidence. Drawn again only when the segment's words or text change: the list is redrawn each time the playing
 * segment moves, and a long transcript's words are most of its elements.
 */
export class SegmentWords extends Component<SegmentWordsProps> {
  override shouldComponentUpdate(next: SegmentWordsProps): boolean {
    return next.words !== this.props.words || next.text !== this.props.text;
  }

  override render({ text, words }: SegmentWordsProps) {
    const texts = shownTexts(text, words);
    return (
      <span class="segment-text segment-words">
        {words.map((word, i) => {
          const shown = texts[i];
          const { confidence } = word;
          return [
            i > 0 ? " " : null,
            confidence !== null && confidence < lowConfidence ? (
              <mark class="word uncertain" data-start={word.start} title={`Low confidence (${percent(confidence)}): check this word`}>
                {shown}
              </mark>
            ) : (
              <span class="word" data-start={word.start} title={confidence === null ? undefined : `Confidence ${percent(confidence)}`}>
                {shown}
              </span>
            ),
          ];
        })}
      </span>
    );
  }
}

/** Says what the marked words are, once, above the transcript: the marking is explained in words, not only shown. */
export function UncertainWordsNote({ count }: { count: number }) {
  if (count === 0) return null;
  const one = count === 1;
  const rest =
    ` the recognition was unsure of (confidence below ${percent(lowConfidence)}) ${one ? "is" : "are"} marked like this: ` +
    `check ${one ? "it" : "them"} against the recording. Clicking a word takes the player to it.`;
  return (
    <p class="muted uncertain-note">
      <mark class="word uncertain">{one ? "1 word" : `${count} words`}</mark>
      {rest}
    </p>
  );
}
