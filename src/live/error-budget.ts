/**
 * How many frames a session reads and how many `error` events it answers. A client sending a flood (tens of thousands
 * of frames a second over one connection) would otherwise have each parsed, answered and queued on the event loop that
 * serves everyone. Each budget is a bucket of `burst` tokens refilled at `perSecond`:
 * - every frame takes one from the frame budget (200 at once, then 100 a second; a real client sends about 50 a second,
 *   20 ms appends): past it the session ends (`too_many_events`, 1008, its audio still kept as a task);
 * - every `error` answer takes one from the error budget (50 at once, then 20 a second): past it the session ends
 *   (`too_many_errors`), except for audio refused as too fast, which has a bucket of its own and is only dropped quietly
 *   once that one is empty, so a client catching up is slowed, not cut off, and its refusals never use up the others'.
 */
import type { EndRequest } from "./session-end.ts";
import { sessionError } from "./server-events.ts";

/** A token bucket: `burst` at once, refilled at `perSecond`. */
export class ErrorBudget {
  private tokens: number;
  private refilledAt: number | null = null;

  constructor(
    private readonly burst = 50,
    private readonly perSecond = 20,
  ) {
    this.tokens = burst;
  }

  /** Whether one more may go now (and counts it). */
  take(now: number): boolean {
    if (this.refilledAt !== null) this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.perSecond);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** What becomes of an `error` answer: sent, dropped quietly, or the end of the session. */
export type AnswerVerdict = "send" | "drop" | "end";

/** A session's budgets of frames read and errors answered. */
export class EventBudgets {
  private readonly frames = new ErrorBudget(200, 100);
  private readonly errors = new ErrorBudget();
  private readonly tooFast = new ErrorBudget();

  /** Whether one more frame is read; false: the session ends (tooManyEvents). */
  frame(now: number): boolean {
    return this.frames.take(now);
  }

  /** Whether an error with this code is sent, dropped (audio too fast, its bucket empty), or ends the session. */
  answer(code: string, now: number): AnswerVerdict {
    if (code === "audio_too_fast") return this.tooFast.take(now) ? "send" : "drop";
    return this.errors.take(now) ? "send" : "end";
  }
}

/** The end of a session whose client sent more bad events than the budget answers. */
export const tooManyErrors = (): EndRequest => ({
  reason: "closed",
  notice: sessionError("too_many_errors", "The session ended: the client sent more invalid events than are answered (50 at once, then 20 a second)."),
  closeCode: 1008,
  announce: true,
});

/** The end of a session whose client sent more frames than a session reads. */
export const tooManyEvents = (): EndRequest => ({
  reason: "closed",
  notice: sessionError("too_many_events", "The session ended: the client sent more events than a session reads (200 at once, then 100 a second)."),
  closeCode: 1008,
  announce: true,
});
