type Kind = "regular" | "express";

/** What a job is granted: `bulk` when its account already had a job running (it has had its share of the machine). */
export type Slot = { bulk: boolean };
type Grant = { kind: Kind; slot: Slot };

/**
 * At most `limit` jobs at once, shared between keys (accounts) so that one account's long recordings
 * (hundreds of chunks) cannot hold back another's short clip:
 * - waiting jobs are queued per key and served round-robin across keys;
 * - a key none of whose jobs is running starts at once, on one of up to `limit` extra "express" slots,
 *   instead of waiting for a running chunk to end (a chunk cannot be interrupted). At worst twice `limit`
 *   jobs run, and only while several accounts each start their first one;
 * - a job granted while its account already has one running is `bulk`: its process runs behind the others' (a lower
 *   CPU priority), so an account's first job, express or not, gets a core of its own on a small machine instead of
 *   sharing two cores with another account's many (bench/fairness.bench.ts measures it).
 */
export class Limiter {
  private active = 0;
  private express = 0;
  private readonly running = new Map<string, number>();
  private readonly queues = new Map<string, ((grant: Grant) => void)[]>();
  /** Keys with waiting jobs, in the order they are served next. */
  private readonly turns: string[] = [];

  constructor(readonly limit: number) {}

  async run<T>(job: (slot: Slot) => Promise<T>, key = ""): Promise<T> {
    const { kind, slot } = await this.acquire(key);
    try {
      return await job(slot);
    } finally {
      this.release(key, kind);
    }
  }

  private acquire(key: string): Grant | Promise<Grant> {
    if (this.active < this.limit) return this.grant(key, "regular");
    if (this.idle(key) && this.express < this.limit) return this.grant(key, "express");
    return new Promise<Grant>((resolve) => {
      const queue = this.queues.get(key);
      if (queue) queue.push(resolve);
      else {
        this.queues.set(key, [resolve]);
        this.turns.push(key);
      }
    });
  }

  private idle(key: string): boolean {
    return (this.running.get(key) ?? 0) === 0 && !this.queues.has(key);
  }

  private grant(key: string, kind: Kind): Grant {
    if (kind === "regular") this.active++;
    else this.express++;
    const alreadyRunning = this.running.get(key) ?? 0;
    this.running.set(key, alreadyRunning + 1);
    return { kind, slot: { bulk: alreadyRunning > 0 } };
  }

  private release(key: string, kind: Kind): void {
    if (kind === "regular") this.active--;
    else this.express--;
    const left = (this.running.get(key) ?? 1) - 1;
    if (left === 0) this.running.delete(key);
    else this.running.set(key, left);
    this.dispatch();
  }

  /** Fills free regular slots in turn, then free express slots with accounts that have nothing running. */
  private dispatch(): void {
    while (this.active < this.limit && this.turns.length > 0) this.serve(this.turns[0]!, "regular");
    while (this.express < this.limit) {
      const key = this.turns.find((k) => (this.running.get(k) ?? 0) === 0);
      if (key === undefined) break;
      this.serve(key, "express");
    }
  }

  /** Starts the next job of `key` (which then goes to the back of the line). */
  private serve(key: string, kind: Kind): void {
    this.turns.splice(this.turns.indexOf(key), 1);
    const queue = this.queues.get(key)!;
    const resolve = queue.shift()!;
    if (queue.length > 0) this.turns.push(key);
    else this.queues.delete(key);
    resolve(this.grant(key, kind));
  }
}
