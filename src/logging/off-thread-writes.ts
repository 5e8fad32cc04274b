/**
 * Log batches written to standard output or error by a thread of their own, so the event loop never waits in a write
 * system call: a file under the kernel's writeback, or a pipe whose collector reads slowly, held every request behind
 * it (at LOG_LEVEL=info, a task's detail served 2 to 4 % fewer requests a second writing to a file than to /dev/null).
 *
 * Nothing is lost, doubled or reordered, whatever the thread has got to:
 * - each batch carries a number; the thread writes a batch only while holding a lock shared with this thread, and
 *   records the highest number written;
 * - `writeNow` (an error line, the process's exit) takes the same lock, ahead of the thread's next batch, writes here
 *   every batch not yet recorded, and records them, so the thread skips them when their messages reach it. It waits
 *   for a write the thread has begun, however long: writing over it could tear a line.
 * - Beyond `maxQueuedChars` not yet written, batches are written here: a collector that stops reading then slows the
 *   service, as it always did, instead of growing its memory (about twice that many bytes at most, with the thread's
 *   copies).
 * - If the thread fails, it is retired (the lock set so that it never writes again) and everything is written here.
 */
import pino from "pino";
import { lockWords, type OpenWrites } from "./off-thread-lock.ts";

export type Destination = { write(text: string): unknown };

export class OffThreadWrites implements Destination {
  private readonly shared = new SharedArrayBuffer(16);
  private readonly lock = new Int32Array(this.shared, 0, 2);
  private readonly written = new BigInt64Array(this.shared, 8, 1);
  private thread: Worker | null = null;
  /** Batches handed to the thread, oldest first, from `head`; kept until recorded written. */
  private readonly queued: { number: number; text: string }[] = [];
  private head = 0;
  private queuedChars = 0;
  private lastNumber = 0;

  constructor(
    fd: 1 | 2,
    private readonly here: Destination = pino.destination({ dest: fd, sync: true }),
    private readonly maxQueuedChars = 8 * 1024 * 1024,
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

  /** Characters handed over and not yet written (tests, and the bound). */
  get waitingChars(): number {
    this.forgetWritten();
    return this.queuedChars;
  }

  write(text: string): void {
    if (this.thread === null) {
      this.here.write(text);
      return;
    }
    this.forgetWritten();
    const number = ++this.lastNumber;
    this.queued.push({ number, text });
    this.queuedChars += text.length;
    if (this.queuedChars > this.maxQueuedChars) this.writeNow();
    else this.thread.postMessage({ number, text });
  }

  /** Everything handed over so far, then `more`, is written when this returns. */
  writeNow(more = ""): void {
    this.forgetWritten();
    if (this.thread !== null && this.head < this.queued.length) {
      this.take();
      try {
        this.writeWaiting();
      } finally {
        this.release(lockWords.free);
      }
    }
    if (more.length > 0) this.here.write(more);
  }

  /** Writes what waits, and writes everything here from now on. */
  close(): void {
    if (this.thread !== null) this.retire(this.thread);
  }

  /** The thread said it failed (its only message) or died: what it had not written is written here, now and later. */
  private lose(thread: Worker): void {
    if (this.thread === thread) this.retire(thread);
  }

  /** Takes the lock for good (the thread never takes it again), writes what waits, and stops the thread. */
  private retire(thread: Worker): void {
    this.take();
    try {
      this.writeWaiting();
    } finally {
      this.release(lockWords.retired);
      this.thread = null;
      this.queued.length = 0;
      this.head = 0;
      this.queuedChars = 0;
      thread.terminate();
    }
  }

  private writeWaiting(): void {
    const done = Number(Atomics.load(this.written, 0));
    for (let i = this.head; i < this.queued.length; i++) if (this.queued[i]!.number > done) this.here.write(this.queued[i]!.text);
    Atomics.store(this.written, 0, BigInt(this.lastNumber));
    this.forgetWritten();
  }

  /** The lock, ahead of the thread's next batch: a batch it has begun is finished first. */
  private take(): void {
    Atomics.store(this.lock, lockWords.wantedHere, 1);
    while (Atomics.compareExchange(this.lock, lockWords.holder, lockWords.free, lockWords.heldHere) !== lockWords.free) {
      Atomics.wait(this.lock, lockWords.holder, lockWords.heldByThread, 50);
    }
    Atomics.store(this.lock, lockWords.wantedHere, 0);
  }

  private release(to: typeof lockWords.free | typeof lockWords.retired): void {
    Atomics.store(this.lock, lockWords.holder, to);
    Atomics.notify(this.lock, lockWords.holder);
    Atomics.notify(this.lock, lockWords.wantedHere);
  }

  private forgetWritten(): void {
    const done = Number(Atomics.load(this.written, 0));
    while (this.head < this.queued.length && this.queued[this.head]!.number <= done) {
      this.queuedChars -= this.queued[this.head]!.text.length;
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
