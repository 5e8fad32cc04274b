/**
 * Log lines written to a file descriptor together instead of one system call each: a busy service logs a line per
 * request, and writing each as it came cost a fifth to a third of its requests a second at LOG_LEVEL=info. Lines wait
 * at most `maxDelayMs` (or until `maxBytes` have gathered); a line at error level or above is written at once with
 * everything before it, and whatever waits is written when the process exits, so a crash, an exit or a SIGTERM loses
 * nothing. Only a SIGKILL can lose the last few milliseconds' lines. The service hands its batches to a thread that
 * writes them (`moveOffThread`, off-thread-writes.ts); an error line and the exit still write everything at once.
 */
import pino from "pino";
import { OffThreadWrites } from "./off-thread-writes.ts";

/** `writeNow`: what the destination still holds of what it was given, then `more`, written before it returns. */
type Destination = { write(text: string): unknown; writeNow?(more?: string): void; close?(): void };

/** Standard output or error, written synchronously (pino's destination retries a full pipe) when a batch goes out. */
const standardStream = (fd: 1 | 2): Destination => pino.destination({ dest: fd, sync: true });

export class BatchedOutput {
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private fd: 1 | 2 | null = null;
  private readonly onExit = () => this.flush();

  constructor(
    private destination: Destination,
    private readonly maxDelayMs = 20,
    private readonly maxBytes = 64 * 1024,
  ) {
    process.on("exit", this.onExit);
  }

  static of(fd: 1 | 2): BatchedOutput {
    const output = new BatchedOutput(standardStream(fd));
    output.fd = fd;
    return output;
  }

  /** Batches are written by a thread of their own from now on (the service; tools keep writing themselves). */
  moveOffThread(): void {
    if (this.fd === null || this.destination instanceof OffThreadWrites) return;
    this.flush();
    this.destination = new OffThreadWrites(this.fd, this.destination);
  }

  /**
   * Later lines go to standard output or error instead, those waiting where they were headed. The same output, so
   * the process keeps one exit hook, and no output is left registered with nothing to write.
   */
  switchTo(fd: 1 | 2): void {
    this.flush();
    this.destination.close?.();
    this.destination = standardStream(fd);
    this.fd = fd;
  }

  write(line: string): void {
    this.pending.push(line);
    this.pendingBytes += line.length;
    if (this.pendingBytes >= this.maxBytes) this.handOver();
    else if (this.timer === null) {
      this.timer = setTimeout(() => this.handOver(), this.maxDelayMs);
      // Lines waiting to be written do not keep the process alive: exit writes them.
      this.timer.unref?.();
    }
  }

  /** Writes what waits, now: written when this returns (not handed to a thread first, which would only copy it). */
  flush(): void {
    const text = this.takePending();
    if (this.destination.writeNow) this.destination.writeNow(text);
    else if (text.length > 0) this.destination.write(text);
  }

  /** What waits goes to the destination as one batch (to its thread, when it has one). */
  private handOver(): void {
    const text = this.takePending();
    if (text.length > 0) this.destination.write(text);
  }

  private takePending(): string {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const text = this.pending.length === 1 ? this.pending[0]! : this.pending.join("");
    this.pending = [];
    this.pendingBytes = 0;
    return text;
  }

  /** No more lines: what waits is written, and exit has nothing left to do. */
  close(): void {
    this.flush();
    this.destination.close?.();
    process.off("exit", this.onExit);
  }
}
