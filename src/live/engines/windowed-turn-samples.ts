/** A stretch of a turn's samples and where it starts, in samples from the turn's first pushed sample. */
export type TurnStretch = { samples: Int16Array; startSample: number };

/**
 * The current turn's samples, at most `maxSamples` of them: past the bound the oldest are dropped, so memory stays
 * bounded however long a client speaks without a pause, and the newest audio (which partials show) is always there.
 * Kept in the chunks they were pushed in (copies, so the caller may reuse its buffer), so that dropping costs no copy
 * of the whole turn.
 */
export class TurnSamples {
  private chunks: Int16Array[] = [];
  private held = 0;
  private droppedSamples = 0;

  constructor(private readonly maxSamples: number) {
    if (!Number.isInteger(maxSamples) || maxSamples < 1) throw new RangeError(`maxSamples must be a positive integer, not ${maxSamples}`);
  }

  /** Every sample pushed in this turn, the dropped ones included. */
  get length(): number {
    return this.droppedSamples + this.held;
  }

  /** Samples dropped from the turn's start: the kept audio starts this far into the turn. */
  get dropped(): number {
    return this.droppedSamples;
  }

  push(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (samples.length >= this.maxSamples) {
      this.droppedSamples += this.held + samples.length - this.maxSamples;
      this.chunks = [samples.slice(samples.length - this.maxSamples)];
      this.held = this.maxSamples;
      return;
    }
    this.chunks.push(samples.slice());
    this.held += samples.length;
    this.trim();
  }

  /** The last `count` samples kept (all of them when fewer are kept). */
  tail(count: number): TurnStretch {
    const size = Math.max(0, Math.min(Math.floor(count), this.held));
    const out = new Int16Array(size);
    let end = size;
    for (let i = this.chunks.length - 1; i >= 0 && end > 0; i--) {
      const chunk = this.chunks[i]!;
      const part = chunk.subarray(Math.max(0, chunk.length - end));
      out.set(part, end - part.length);
      end -= part.length;
    }
    return { samples: out, startSample: this.length - size };
  }

  /** Every sample kept, and the turn starts again empty. */
  take(): TurnStretch {
    const all = this.tail(this.held);
    this.clear();
    return all;
  }

  clear(): void {
    this.chunks = [];
    this.held = 0;
    this.droppedSamples = 0;
  }

  private trim(): void {
    while (this.held > this.maxSamples) {
      const first = this.chunks[0]!;
      const excess = this.held - this.maxSamples;
      const cut = Math.min(excess, first.length);
      if (cut === first.length) this.chunks.shift();
      else this.chunks[0] = first.slice(cut); // a copy, so the dropped part's memory goes
      this.held -= cut;
      this.droppedSamples += cut;
    }
  }
}
