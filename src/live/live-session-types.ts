/** What a live session hands over when it ends, to become a task (live-task.ts), and why it ended. */
import type { EngineName } from "../tasks/recognition-choice.ts";
import type { RecognizedWord } from "../transcription/engine.ts";

/** Why a session ended: the client closed it, went idle, reached the maximum length, or the balance ran out. */
export type SessionEnd = "closed" | "idle" | "max_length" | "balance" | "server_shutdown";

/** A transcribed turn, times in ms from the session's first sample (word times too). */
export type LiveTurn = { start: number; end: number; text: string; words: RecognizedWord[]; punctuated: boolean };

/** A session's audio as it is recorded: every accepted sample, 16 kHz mono 16-bit, in order, on disk (never all in memory). */
export interface SessionAudio {
  append(samples: Int16Array): void;
  /** Milliseconds recorded so far. */
  readonly durationMs: number;
  /** Finishes the file: a 16 kHz mono WAV at the returned path, which the caller hands to `LiveTasks.keep`. */
  close(): Promise<string>;
  /** Removes the file (a session that recorded nothing, or once the task has stored it). */
  discard(): Promise<void>;
}

/** An ended session, as live-task.ts turns it into a task. */
export type EndedSession = {
  sessionId: string;
  userId: number;
  /** The WAV `SessionAudio.close` wrote. */
  wavPath: string;
  durationMs: number;
  turns: LiveTurn[];
  /** null: the service's default engine. */
  engine: EngineName | null;
  language: string | null;
  vocabulary: string[];
  /** Asked for with the model `gpt-4o-transcribe-diarize` (or the web app's speakers switch). */
  speakerDiarization: boolean;
  startedAt: Date;
  end: SessionEnd;
};
