/**
 * What a session refuses so that a client cannot make it do unbounded work, and the `error` events that say so: audio
 * that is no audio, turns too short to transcribe, more turns awaiting their final text than the recognizer is
 * working through, and audio while the recognizer is far behind.
 */
import { errorEvent, type ServerEvent } from "./server-events.ts";

/** A commit with less audio in the turn than this is refused, as OpenAI refuses it: each turn costs a final pass. */
export const minCommitMs = 100;
/** Turns committed and still waiting for their final text; past it, the open turn is not ended but goes on. */
export const maxTurnsAwaitingFinal = 3;
/** Audio pushed to the recognizer and not yet decoded; past it, appends are refused until it catches up. */
export const maxUndecodedMs = 10_000;

export const noAudio = (eventId: string | null): ServerEvent =>
  errorEvent({ code: "invalid_audio", message: "Invalid audio: the append holds no audio.", param: "audio", eventId });

export const commitEmpty = (eventId: string | null): ServerEvent =>
  errorEvent({
    code: "input_audio_buffer_commit_empty",
    message: `There is nothing to commit: no speech (or under ${minCommitMs} ms of audio) since the last turn.`,
    param: null,
    eventId,
  });

/** A commit, or a turn server_vad would end, while `maxTurnsAwaitingFinal` turns wait: the turn goes on into the next. */
export const turnBacklog = (eventId: string | null): ServerEvent =>
  errorEvent({
    code: "turn_backlog",
    message:
      `The recognizer is still working on ${maxTurnsAwaitingFinal} turns, so this turn was not ended: its audio goes on into the next turn, ` +
      "which ends at the next commit or pause once a final text has come.",
    param: null,
    eventId,
  });

export const recognizerBehind = (undecodedMs: number, eventId: string | null): ServerEvent =>
  errorEvent({
    code: "audio_too_fast",
    message:
      `The speech recognizer is behind (${(undecodedMs / 1000).toFixed(1)} s of audio not yet decoded, at most ${maxUndecodedMs / 1000} s are held); ` +
      "this append was dropped. Send audio at most as fast as it plays.",
    param: "audio",
    eventId,
  });
