import type { Document, DocumentStore } from "../readmodels/port.ts";

type CounterDocument = Document & { count: number; expiresAt: number };

export type RateDecision = { allowed: boolean; retryAfterSeconds: number; remaining: number };

/**
 * Fixed one-minute windows counted in the read-model store with an atomic increment, so the limit
 * holds across every API process that shares the store (MongoDB in the cluster profile).
 */
export class RateLimiter {
  private lastSweep = 0;

  constructor(
    private readonly db: DocumentStore,
    private readonly limitPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(key: string): Promise<RateDecision> {
    const now = this.now();
    const windowStart = Math.floor(now / 60_000) * 60_000;
    const counters = this.db.collection<CounterDocument>("rate_limits");
    const counter = await counters.findOneAndUpdate(
      { _id: `${key}@${windowStart}` },
      { $inc: { count: 1 }, $set: { expiresAt: windowStart + 60_000 } },
      { upsert: true },
    );
    if (now - this.lastSweep >= 60_000) void this.sweep(now);
    const count = counter?.count ?? 1;
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + 60_000 - now) / 1000));
    return { allowed: count <= this.limitPerMinute, retryAfterSeconds, remaining: Math.max(0, this.limitPerMinute - count) };
  }

  /** Old windows are useless: drop them now and then. */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    await this.db.collection<CounterDocument>("rate_limits").deleteMany({ expiresAt: { $lt: now } });
  }
}
