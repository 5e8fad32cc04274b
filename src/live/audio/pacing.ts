/**
 * How fast a session may send audio: a client may stream faster than real time (a file, a reconnect catching up), but
 * not without bound, since every admitted second is decoded and kept. Audio is admitted while the total admitted stays
 * within `speed` times the wall time since audio began to arrive, plus a burst allowance; what is refused is not
 * counted, so a client that slows down is admitted again.
 */
export class AudioPacing {
  private readonly speed: number;
  private readonly burstMs: number;
  private startedAtMs: number | null = null;
  private admittedMs = 0;

  constructor(options: { speed: number; burstMs: number }) {
    if (!(options.speed > 0) || !(options.burstMs >= 0)) throw new RangeError("AudioPacing needs a positive speed and a burst of 0 ms or more");
    this.speed = options.speed;
    this.burstMs = options.burstMs;
  }

  /**
   * Whether `audioMs` of audio arriving at `nowMs` (any monotonic clock) is admitted. The clock starts at the first call,
   * admitted or not, so a first chunk larger than the burst does not keep the clock from ever starting.
   */
  admit(audioMs: number, nowMs: number): boolean {
    this.startedAtMs ??= nowMs;
    const allowedMs = this.speed * Math.max(0, nowMs - this.startedAtMs) + this.burstMs;
    if (this.admittedMs + audioMs > allowedMs) return false;
    this.admittedMs += audioMs;
    return true;
  }
}
