/**
 * Log batches written to standard output or error by a thread of its own, so the event loop never waits in a write
 * system call: a file under the kernel's writeback, or a pipe whose collector reads slowly, held every request behind
 * it (at LOG_LEVEL=info, a task's detail served 2 to 4 % fewer requests a second writing to a file than to /dev/null).
 *
 * Nothing is lost, doubled or reordered, whatever the thread has got to:
 * - each batch carries a number; the thread writes a batch only while holding a lock shared with this thread, and
 *   records the highest number written;
 * - `writeNow` (an error line, the process's exit) takes the same lock, writes here every batch not yet recorded, and
 *   records them, so the thread skips them when their messages reach it.
 * - Beyond `maxQueuedBytes` not yet written, batches are written here: a collector that stops reading then slows the
 *   service, as it always did, instead of growing its memory.
 * - If the thread fails or cannot start, everything is written here from then on.
 */
import pino from "pino";

export type Destination = { write(text: string): unknown };

/** Who holds the shared lock. */
const free = 0;
const heldByThread = 1;
const heldHere = 2;

/**
 * How long `writeNow` waits for the thread's write before writing over it. Its write only blocks while the collector
 * does not read, when a write here would block as long; the limit is for a thread that died holding the lock, so the
 * exit cannot hang on it, and is long, since writing over a write that was merely slow can double part of a batch.
 */
const mostWaitMs = 10_000;

/** What the thread is told first: where to write, and the shared lock and count (log-writes-thread.ts). */
export type OpenWrites = { fd: 1 | 2; shared: SharedArrayBuffer };

export class OffThreadWrites implements Destination {
  private readonly shared = new SharedArrayBuffer(16);
  private readonly lock = new Int32Array(this.shared, 0, 1);
  private readonly written = new BigInt64Array(this.shared, 8, 1);
  private thread: Worker | null = null;
  /** Batches handed to the thread, oldest first, from `head`; kept until recorded written. */
  private readonly queued: { number: number; text: string }[] = [];
  private head = 0;
  private queuedBytes = 0;
  private lastNumber = 0;

  constructor(
    fd: 1 | 2,
    private readonly here: Destination = pino.destination({ dest: fd, sync: true }),
    private readonly maxQueuedBytes = 8 * 1024 * 1024,
  ) {
    try {
      const thread = new Worker(new URL("./log-writes-thread.ts", import.meta.url).href, { smol: true });
      thread.unref();
      thread.onmessage = () => this.lose(thread);
      thread.onerror = () => this.lose(thread);
      thread.postMessage({ fd, shared: this.shared } satisfies OpenWrites);
      this.thread = thread;
    } catch {
      this.thread = null;
    }
  }

  /** Bytes handed over and not yet written (tests, and the bound). */
  get waitingBytes(): number {
    this.forgetWritten();
    return this.queuedBytes;
  }

  write(text: string): void {
    this.forgetWritten();
    const number = ++this.lastNumber;
    this.queued.push({ number, text });
    this.queuedBytes += text.length;
    if (this.thread === null || this.queuedBytes > this.maxQueuedBytes) this.writeNow();
    else this.thread.postMessage({ number, text });
  }

  /** Everything handed over so far is written when this returns. */
  writeNow(): void {
    this.forgetWritten();
    if (this.head === this.queued.length) return;
    this.take();
    try {
      const done = Number(Atomics.load(this.written, 0));
      for (let i = this.head; i < this.queued.length; i++) if (this.queued[i]!.number > done) this.here.write(this.queued[i]!.text);
      Atomics.store(this.written, 0, BigInt(this.lastNumber));
    } finally {
      Atomics.store(this.lock, 0, free);
      Atomics.notify(this.lock, 0);
    }
    this.forgetWritten();
  }

  /** Writes what waits, and writes everything here from now on. */
  close(): void {
    this.writeNow();
    this.thread?.terminate();
    this.thread = null;
  }

  private take(): void {
    const giveUpAt = performance.now() + mostWaitMs;
    while (Atomics.compareExchange(this.lock, 0, free, heldHere) !== free) {
      if (performance.now() > giveUpAt) {
        // The thread is stuck in a write (a pipe nobody reads) or gone mid-write: write over it from now on.
        this.thread?.terminate();
        this.thread = null;
        Atomics.store(this.lock, 0, heldHere);
        return;
      }
      Atomics.wait(this.lock, 0, heldByThread, 50);
    }
  }

  /** The thread said it failed (its only message) or died: what it had not written is written here, now and later. */
  private lose(thread: Worker): void {
    if (this.thread !== thread) return;
    this.thread = null;
    thread.terminate();
    this.writeNow();
  }

  private forgetWritten(): void {
    const done = Number(Atomics.load(this.written, 0));
    while (this.head < this.queued.length && this.queued[this.head]!.number <= done) {
      this.queuedBytes -= this.queued[this.head]!.text.length;
      this.head++;
    }
    if (this.head === this.queued.length) {
      this.queued.length = 0;
      this.head = 0;
    } else if (this.head > 1024) {
      this.queued.splice(0, this.head);
      this.head = 0;
    }
  }
}

export const lockHolders = { free, heldByThread, heldHere } as const;
