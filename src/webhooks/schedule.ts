/**
 * When to try a message again. The delays follow the Standard Webhooks example (Svix's schedule): 5 s,
 * 5 min, 30 min, 2 h, 5 h, 10 h, 10 h after the successive failures, 27.6 hours in all, then the message
 * is given up and its endpoint disabled. WEBHOOK_RETRY_SCHEDULE_SECONDS replaces it (tests shorten it).
 */
export const defaultRetryScheduleSeconds: readonly number[] = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

/** Spread of each delay (±10 %), so receivers that failed together are not all retried in the same second. */
const jitterShare = 0.1;

/**
 * When the attempt after `failedAttempt` (1 for the first) is due, or null when the schedule is spent.
 * `random` in [0, 1) comes from the caller, so this stays pure.
 */
export function nextAttemptAt(failedAttempt: number, at: Date, scheduleMs: readonly number[], random: number): string | null {
  const delay = scheduleMs[failedAttempt - 1];
  if (delay === undefined) return null;
  const jittered = delay * (1 + jitterShare * (2 * random - 1));
  return new Date(at.getTime() + Math.round(jittered)).toISOString();
}
