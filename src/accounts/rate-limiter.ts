import type { Document, DocumentStore } from "../readmodels/port.ts";

type CounterDocument = Document & { count: number; expiresAt: number };

export type RateDecision = { allowed: boolean; retryAfterSeconds: number; remaining: number };

/** What this process holds of one key's current window: requests reserved but not yet used. */
type Lease = { windowStart: number; unused: number; reservedByAll: number };

/**
 * Fixed one-minute windows counted in the read-model store with an atomic increment, so the limit
 * holds across every API process that shares the store (MongoDB in the cluster profile).
 *
 * A process reserves requests from the shared counter and spends them locally. While fewer than
 * RESERVE_FRACTION⁻¹ requests are left in the window it reserves one at a time, so limits up to 1,000 a
 * minute are exact across processes; above that it reserves a thousandth of what is left, which spares
 * the store a write per request and can at most deny that small a share early when several processes
 * hold reservations. It never allows more than the limit. Once the shared counter is spent, the key is
 * refused without asking the store again until the window ends.
 */
export class RateLimiter {
  private lastSweep = 0;
  private readonly leases = new Map<string, Lease>();

  constructor(
    private readonly db: DocumentStore,
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(key: string): Promise<RateDecision> {
    const now = this.now();
    const windowStart = Math.floor(now / 60_000) * 60_000;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
    if (now - this.lastSweep >= 60_000) void this.sweep(now);

    let lease = this.leases.get(key);
    if (lease === undefined || lease.windowStart !== windowStart) {
      lease = { windowStart, unused: 0, reservedByAll: 0 };
      this.leases.set(key, lease);
    }
    if (lease.unused === 0 && lease.reservedByAll < this.limitPerMinute) {
      const wanted = Math.max(1, Math.floor((this.limitPerMinute - lease.reservedByAll) * RESERVE_FRACTION));
      const counter = await this.db
        .collection<CounterDocument>("rate_limits")
        .findOneAndUpdate({ _id: `${key}@${windowStart}` }, { $inc: { count: wanted }, $set: { expiresAt: windowStart + 60_000 } }, { upsert: true });
      const reservedByAll = counter?.count ?? wanted;
      // The window may have turned, or another request of this process reserved, while this one waited.
      const current = this.leases.get(key);
      if (current !== undefined && current.windowStart === windowStart) lease = current;
      lease.reservedByAll = Math.max(lease.reservedByAll, reservedByAll);
      lease.unused += Math.max(0, Math.min(wanted, this.limitPerMinute - (reservedByAll - wanted)));
    }
    if (lease.unused === 0) return { allowed: false, retryAfterSeconds, remaining: 0 };
    lease.unused--;
    const remaining = Math.max(0, this.limitPerMinute - lease.reservedByAll) + lease.unused;
    return { allowed: true, retryAfterSeconds, remaining };
  }

  /**
   * The seconds until this window ends when `key` is known here to have spent it, else null (unsure: `hit` decides).
   * It counts nothing and asks no store: a check a request can afford before its body is read.
   */
  knownSpent(key: string): number | null {
    const now = this.now();
    const lease = this.leases.get(key);
    if (lease === undefined || lease.windowStart !== Math.floor(now / 60_000) * 60_000) return null;
    if (lease.unused > 0 || lease.reservedByAll < this.limitPerMinute) return null;
    return Math.max(1, Math.ceil((lease.windowStart + 60_000 - now) / 1000));
  }

  /** Old windows are useless: drop them now and then, here and in the store. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const windowStart = Math.floor(now / 60_000) * 60_000;
    for (const [key, lease] of this.leases) if (lease.windowStart < windowStart) this.leases.delete(key);
    await this.db.collection<CounterDocument>("rate_limits").deleteMany({ expiresAt: { $lt: now } });
  }
}

const RESERVE_FRACTION = 1 / 1000;

/** Retry-After in words, for the 429's message: "42 seconds", "1 second"; a wait over 90 seconds in whole minutes. */
export function retryAfterInWords(seconds: number): string {
  if (seconds <= 90) return seconds === 1 ? "1 second" : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
