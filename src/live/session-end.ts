/**
 * A session's end, whatever ended it (the client's session.close or its going away, idle time, the maximum length, the
 * balance): the open turn is finished and every turn's final words sent, the recording becomes a task (live-task.ts),
 * the session's places are freed, `session.closed` names the task, and the socket closes. Runs once per session.
 */
import { logger } from "../logging/logger.ts";
import type { EndedSession, SessionAudio, SessionEnd } from "./live-session-types.ts";
import { newEventId, sessionError, type ServerEvent } from "./server-events.ts";
import type { SessionPorts } from "./session-ports.ts";

const log = logger("live");

export type EndRequest = {
  reason: SessionEnd;
  /** The `error` event that says why, sent first (null: the client asked, or is gone). */
  notice: ServerEvent | null;
  closeCode: number;
  /** Whether to send `session.closed` (not to a client that is gone). */
  announce: boolean;
};

/** Twice real time, beyond the burst allowance (LIVE_BURST_SECONDS), is refused. */
export const fastestSpeed = 2;

export const tooFast = (burstMs: number) =>
  `Audio is arriving faster than ${fastestSpeed}x real time beyond the ${burstMs / 1000} s allowance; this append was dropped. ` +
  "Send audio at most twice as fast as it plays.";

/** The end at the maximum length, counted in audio received or in wall-clock time, whichever comes first. */
export function maxLengthEnd(maxSessionMs: number): EndRequest {
  const message = `The session reached its maximum length (${Math.round(maxSessionMs / 60_000)} min, of audio or of time connected) and ended.`;
  return { reason: "max_length", notice: sessionError("session_max_length", message), closeCode: 1000, announce: true };
}

/** The end a limit calls for once `recordedMs` of audio came: the maximum length, or the balance; null while neither. */
export function reachedLimit(recordedMs: number, maxSessionMs: number, budgetMs: number): EndRequest | null {
  if (recordedMs >= maxSessionMs) return maxLengthEnd(maxSessionMs);
  if (recordedMs >= budgetMs) {
    const message = "Your balance ran out of transcription time, so the session ended; what was said so far is kept as a task.";
    return { reason: "balance", notice: sessionError("insufficient_balance", message), closeCode: 1008, announce: true };
  }
  return null;
}

export const idleEnd = (idleTimeoutMs: number): EndRequest => ({
  reason: "idle",
  notice: sessionError("idle_timeout", `No audio arrived for ${Math.round(idleTimeoutMs / 1000)} s, so the session ended.`),
  closeCode: 1000,
  announce: true,
});

/** The end of a session whose recognizer or recording could not start: 1011, the server's failure. */
export function unavailable(error: unknown): EndRequest {
  log.error({ err: error }, "a live session could not start its recognizer or its recording");
  const message = "Live transcription is unavailable: the speech recognizer or the recording could not start. Try again later.";
  return { reason: "closed", notice: sessionError("transcription_unavailable", message, "server_error"), closeCode: 1011, announce: true };
}

/** The end of a session whose recording could not be written (a full disk): 1011, what was written is still kept if it can be. */
export function recordingFailed(error: unknown): EndRequest {
  log.error({ err: error }, "a live session's recording could not be written");
  const message = "Live transcription is unavailable: the session's audio could not be recorded on the server. Try again later.";
  return { reason: "closed", notice: sessionError("transcription_unavailable", message, "server_error"), closeCode: 1011, announce: true };
}

/** What the ending asks of its session. */
export type EndingSession = {
  sessionId: string;
  userId: number;
  finishTurn(): void;
  /** Resolves once every turn's final words have been sent. */
  pendingTurns(): Promise<unknown>;
  /** Frees the recognizer (after the finals it still owes). */
  closeRecognition(): Promise<void>;
  audio(): SessionAudio | null;
  ended(wavPath: string, durationMs: number): EndedSession;
};

export class SessionEnding {
  readonly done: Promise<void>;

  constructor(
    private readonly request: EndRequest,
    private readonly ports: SessionPorts,
    private readonly session: EndingSession,
  ) {
    this.done = this.run();
  }

  private async run(): Promise<void> {
    const { ports, request } = this;
    if (request.notice !== null) ports.send(request.notice);
    let taskId: number | null = null;
    let ended: EndedSession | null = null;
    try {
      this.session.finishTurn();
      await this.session.pendingTurns();
      await this.session.closeRecognition();
      ({ taskId, ended } = await this.keep());
    } catch (error) {
      log.error({ err: error }, "a live session's recording could not become a task");
      ports.send(sessionError("task_not_kept", "The session's recording could not be kept as a task.", "server_error"));
    } finally {
      // Whatever failed above (a full disk closing the WAV, a task not made, a final that threw): no file or decoder stays.
      await this.session
        .audio()
        ?.discard()
        .catch((error: unknown) => log.warn({ err: error }, "a live session's recording could not be removed"));
      await this.session.closeRecognition().catch((error: unknown) => log.warn({ err: error }, "a live session's recognizer could not be closed"));
      await ports.release().catch((error: unknown) => log.warn({ err: error }, "a live session's place could not be released"));
    }
    if (request.announce) ports.send({ type: "session.closed", event_id: newEventId(), task_id: taskId });
    ports.close(request.closeCode, request.reason);
    ports.observe.ended({
      sessionId: this.session.sessionId,
      userId: this.session.userId,
      seconds: (ended?.durationMs ?? 0) / 1000,
      turns: ended?.turns.length ?? 0,
      end: request.reason,
      taskId,
    });
  }

  /** Makes the recording a task; the caller discards the file whatever happens. */
  private async keep(): Promise<{ taskId: number | null; ended: EndedSession | null }> {
    const audio = this.session.audio();
    if (audio === null) return { taskId: null, ended: null };
    const durationMs = audio.durationMs;
    const wavPath = await audio.close();
    const ended = this.session.ended(wavPath, durationMs);
    if (durationMs === 0) return { taskId: null, ended };
    const kept = await this.ports.keep(ended);
    return { taskId: kept?.taskId ?? null, ended };
  }
}
