/**
 * The captions of a live session, assembled from its events: each turn (a conversation item) in the order it
 * began, its text the deltas so far until `completed` gives the final text. Pure (a fold over the events), so
 * that it is tested without a browser.
 */
import type { ServerEvent } from "./realtime-events.ts";

/** A turn's words: `final` once the server completed it, partial (and still changing) before. */
export type Caption = { itemId: string; text: string; final: boolean };

export type Captions = readonly Caption[];

export const noCaptions: Captions = [];

/** At most this many turns are kept: the transcript itself is the task's; the page shows the latest. */
export const keptTurns = 200;

const withTurn = (captions: Captions, itemId: string, change: (turn: Caption) => Caption | null): Captions => {
  const index = captions.findIndex((turn) => turn.itemId === itemId);
  const turn = index === -1 ? { itemId, text: "", final: false } : captions[index]!;
  const next = change(turn);
  if (index === -1) return next ? [...captions, next].slice(-keptTurns) : captions;
  return next ? captions.map((old, at) => (at === index ? next : old)) : captions.filter((_, at) => at !== index);
};

/** The captions after one more event of the session. */
export function nextCaptions(captions: Captions, event: ServerEvent): Captions {
  switch (event.type) {
    case "conversation.item.input_audio_transcription.delta":
      // A delta after the final text (none should come) changes nothing.
      return withTurn(captions, event.itemId, (turn) => (turn.final ? turn : { ...turn, text: turn.text + event.delta }));
    case "conversation.item.input_audio_transcription.completed": {
      const transcript = event.transcript.trim();
      // A turn that was only noise is dropped rather than left as an empty line.
      return withTurn(captions, event.itemId, (turn) => (transcript === "" ? null : { ...turn, text: transcript, final: true }));
    }
    default:
      return captions;
  }
}

/** The finished turns, and the one still being spoken (the partial texts joined: the server may have several in flight). */
export function captionLines(captions: Captions): { finished: Caption[]; partial: string } {
  const finished = captions.filter((turn) => turn.final);
  const partial = captions
    .filter((turn) => !turn.final)
    .map((turn) => turn.text.trim())
    .filter((line) => line !== "")
    .join(" ");
  return { finished, partial };
}
