/** How fast an upload goes and how long it has left, from the bytes sent so far. */
export type Rate = { sent: number; total: number; bytesPerSecond: number | null; secondsLeft: number | null };

/**
 * Speed over the last few seconds rather than since the start, so that it follows the network as it changes
 * (and a retried part, whose bytes count again, shows as the slowdown it is). Until a second's worth of samples
 * is in, there is no speed to give: an estimate from the first few progress events swings wildly.
 */
export class ProgressMeter {
  private readonly samples: { at: number; sent: number }[] = [];

  constructor(
    readonly total: number,
    private readonly windowMs = 3000,
    private readonly settleMs = 1000,
  ) {}

  /** Records `sent` bytes at `at` ms (performance.now()) and says the rate now. */
  sample(sent: number, at: number): Rate {
    this.samples.push({ at, sent });
    while (this.samples.length > 2 && at - this.samples[1]!.at >= this.windowMs) this.samples.shift();
    const first = this.samples[0]!;
    const elapsed = at - first.at;
    if (elapsed < this.settleMs) return { sent, total: this.total, bytesPerSecond: null, secondsLeft: null };
    const rate = Math.max(0, ((sent - first.sent) * 1000) / elapsed);
    return { sent, total: this.total, bytesPerSecond: rate, secondsLeft: rate > 0 ? (this.total - sent) / rate : null };
  }
}
