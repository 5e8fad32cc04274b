/**
 * At most `limit` jobs at once. Waiting jobs are queued per key (an account) and served round-robin
 * across keys, so one account's long recordings (hundreds of chunks) cannot hold back another's short
 * clip: it waits for at most one chunk per account ahead of it, not for every queued chunk.
 */
export class Limiter {
  private active = 0;
  private readonly queues = new Map<string, (() => void)[]>();
  /** Keys with waiting jobs, in the order they are served next. */
  private readonly turns: string[] = [];

  constructor(readonly limit: number) {}

  async run<T>(job: () => Promise<T>, key = ""): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((resolve) => this.enqueue(key, resolve));
    else this.active++;
    try {
      return await job();
    } finally {
      this.next();
    }
  }

  private enqueue(key: string, resolve: () => void): void {
    const queue = this.queues.get(key);
    if (queue) queue.push(resolve);
    else {
      this.queues.set(key, [resolve]);
      this.turns.push(key);
    }
  }

  /** Hands the freed slot to the next account in turn (which then goes to the back of the line). */
  private next(): void {
    const key = this.turns.shift();
    if (key === undefined) {
      this.active--;
      return;
    }
    const queue = this.queues.get(key)!;
    const resolve = queue.shift()!;
    if (queue.length > 0) this.turns.push(key);
    else this.queues.delete(key);
    resolve();
  }
}
