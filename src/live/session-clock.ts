/**
 * The limits a session's clock enforces, decided without I/O: idle time and the maximum length in wall-clock time
 * (the maximum length in audio is counted as audio arrives, session-end.ts's reachedLimit). Only real audio keeps a
 * session alive: an append of a sample or two (or none) every few seconds would otherwise hold its places, its
 * recording and its decoder forever, so the idle time restarts once `audibleMs` of audio has come since it last did.
 */
import { idleEnd, maxLengthEnd, type EndRequest } from "./session-end.ts";

/** Audio that counts as activity: 10 ms, half a 20 ms append, far more than any trickle meant to keep a session open. */
export const audibleMs = 10;

export class SessionClock {
  private lastAudioAt: number;
  /** Audio received since the idle time last restarted, short of `audibleMs`. */
  private heardMs = 0;

  constructor(
    private readonly openedAt: number,
    private readonly limits: { maxSessionMs: number; idleTimeoutMs: number },
  ) {
    this.lastAudioAt = openedAt;
  }

  /** `audioMs` of audio arrived at `now`. */
  heard(audioMs: number, now: number): void {
    this.heardMs += audioMs;
    if (this.heardMs < audibleMs) return;
    this.heardMs = 0;
    this.lastAudioAt = now;
  }

  /** The end the clock calls for at `now`: the maximum length in time connected, or idle time; null while neither. */
  due(now: number): EndRequest | null {
    if (now - this.openedAt >= this.limits.maxSessionMs) return maxLengthEnd(this.limits.maxSessionMs);
    if (now - this.lastAudioAt >= this.limits.idleTimeoutMs) return idleEnd(this.limits.idleTimeoutMs);
    return null;
  }
}
