/** What a live session is given by whoever runs it (routes.ts, or a test): its socket, its services and its clock. */
import type { EndedSession, SessionAudio } from "./live-session-types.ts";
import type { TurnRecognizer } from "./streaming-engine.ts";
import type { ServerEvent } from "./server-events.ts";
import type { SessionConfig } from "./session-config.ts";
import type { VoiceDetector } from "./session-turns.ts";
import type { RecognitionOffer } from "../tasks/recognition-choice.ts";

export type SessionLimits = {
  maxSessionMs: number;
  idleTimeoutMs: number;
  burstMs: number;
  /** How often the partial text is asked for while a turn is open (250 ms: a delta at least every 300 ms). */
  partialEveryMs: number;
  /** How often the balance is read again (other tasks and sessions spend it too). */
  balanceEveryMs: number;
};

export type SessionPorts = {
  /** Sends an event; the socket adapter ends the session when the client stops reading. */
  send(event: ServerEvent): void;
  /** Closes the socket (after the last event). */
  close(code: number, reason: string): void;
  openRecognizer(config: SessionConfig): Promise<TurnRecognizer>;
  /** A voice-activity detector for server_vad (audio/voice-activity.ts). */
  detector(config: NonNullable<SessionConfig["turnDetection"]>): VoiceDetector;
  /** A resampler from the client's rate to 16 kHz (audio/resample.ts). */
  resampler(rate: 16000 | 24000): { push(samples: Int16Array): Int16Array };
  openAudio(): Promise<SessionAudio>;
  /** Makes the ended session a task (live-task.ts); null when nothing was recorded. */
  keep(ended: EndedSession): Promise<{ taskId: number } | null>;
  /**
   * Seconds the session may record in all: the account's balance less what its other open sessions have recorded.
   * `recordedMs`: what this one has recorded so far, noted for those others to count (session-balance.ts).
   */
  remainingSeconds(recordedMs?: number): Promise<number>;
  /** Frees the account's and the service's places for a session. */
  release(): Promise<void>;
  offer: RecognitionOffer;
  limits: SessionLimits;
  /** A monotonic clock, ms. */
  now(): number;
  observe: SessionObserver;
};

/** What the metrics and the log learn of a session. */
export type SessionObserver = {
  audioReceived(seconds: number): void;
  partialLatency(seconds: number): void;
  ended(summary: SessionSummary): void;
};

export type SessionSummary = { sessionId: string; userId: number; seconds: number; turns: number; end: string; taskId: number | null };
