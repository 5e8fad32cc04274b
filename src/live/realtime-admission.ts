/**
 * Whether one more session may open: the process's own cap (LIVE_SESSIONS_AT_ONCE: each session decodes speech as it
 * arrives), the account's places (LIVE_SESSIONS_PER_ACCOUNT, held across processes by session-slots.ts and renewed
 * while the session lives), and a balance with time left. A refusal says why and which close code goes with it:
 * 1013 (try again later) for the service's capacity, 1008 (policy) for the account's limits.
 */
import type { LiveSessionSlots } from "./session-slots.ts";

export type AdmissionRefusal = { code: string; message: string; closeCode: 1008 | 1013 };
export type Admission = { ok: true; remainingSeconds: number; release(): Promise<void> } | { ok: false; refusal: AdmissionRefusal };

export class LiveAdmission {
  private open = 0;

  constructor(
    private readonly slots: LiveSessionSlots,
    private readonly limits: { sessionsAtOnce: number; sessionsPerAccount: number },
    private readonly remainingSeconds: (userId: number) => Promise<number>,
  ) {}

  /** Sessions this process runs now. */
  get openSessions(): number {
    return this.open;
  }

  async admit(userId: number, sessionId: string): Promise<Admission> {
    const { sessionsAtOnce, sessionsPerAccount } = this.limits;
    if (sessionsPerAccount === 0) return refuse("live_transcription_off", "Live transcription is turned off on this service.", 1008);
    if (this.open >= sessionsAtOnce) {
      return refuse("server_busy", `This service runs ${sessionsAtOnce} live sessions at once, all taken now; try again in a moment.`, 1013);
    }
    // Counted before the awaits below, so that parallel upgrades cannot all pass the cap.
    this.open++;
    let claimed = false;
    try {
      const remaining = await this.remainingSeconds(userId);
      if (remaining <= 0) return this.undo(refuse("insufficient_balance", "Your balance has no transcription time left; top up or upgrade your plan.", 1008));
      claimed = await this.slots.claim(userId, sessionId);
      if (!claimed) {
        const message = `This account already has ${sessionsPerAccount} live session${sessionsPerAccount === 1 ? "" : "s"} open, its limit; close one first.`;
        return this.undo(refuse("session_limit_reached", message, 1008));
      }
      return { ok: true, remainingSeconds: remaining, release: this.releaser(userId, sessionId) };
    } catch (error) {
      this.open--;
      if (claimed) await this.slots.release(userId, sessionId).catch(() => undefined);
      throw error;
    }
  }

  private undo(refusal: Admission): Admission {
    this.open--;
    return refusal;
  }

  /** Renews the account's place while the session lives; the returned function frees both places, once. */
  private releaser(userId: number, sessionId: string): () => Promise<void> {
    const renewal = setInterval(() => void this.slots.renew(userId, sessionId).catch(() => undefined), this.slots.renewEveryMs);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      clearInterval(renewal);
      this.open--;
      await this.slots.release(userId, sessionId);
    };
  }
}

const refuse = (code: string, message: string, closeCode: 1008 | 1013): Admission => ({ ok: false, refusal: { code, message, closeCode } });
