/**
 * What renewing a lease needs of the lease store (lease.ts's Leases): taking or renewing a lease answers the
 * epoch held, or null while another process holds it; giving it up lets another take it at once.
 */
export type LeaseTaker = {
  readonly holder: string;
  acquire(name: string, ttlMs: number): Promise<number | null>;
  release(name: string): Promise<void>;
};

/** How often a holder renews: three times a lease, so one late renewal still leaves it trusted. */
export const renewEveryMs = (ttlMs: number) => Math.max(50, Math.floor(ttlMs / 3));

/**
 * When this process last renewed a lease, counted from when the renewal was sent (a late answer is not a fresh
 * lease), and whether that is recent enough to trust: for two thirds of the lease, so a holder that was paused or
 * cut off stops before the lease can have passed to another process.
 */
export class RenewalClock {
  private renewedAt = 0;
  constructor(private readonly ttlMs: number) {}

  renewed(sentAt: number): void {
    this.renewedAt = Math.max(this.renewedAt, sentAt);
  }

  lost(): void {
    this.renewedAt = 0;
  }

  /** Whether the lease was ever renewed since it was last lost. */
  get ever(): boolean {
    return this.renewedAt > 0;
  }

  get trusted(): boolean {
    return this.renewedAt > 0 && Date.now() - this.renewedAt < (this.ttlMs * 2) / 3;
  }

  /**
   * Renews lease `name` for the epoch held, counting from when the renewal was sent: false when another process
   * holds it now (or under another epoch); rejects when the store does not answer, which leaves the clock as it was.
   */
  async renew(leases: LeaseTaker, name: string, epoch: number | null): Promise<boolean> {
    const sentAt = Date.now();
    if ((await leases.acquire(name, this.ttlMs)) !== epoch) return false;
    this.renewed(sentAt);
    return true;
  }
}
