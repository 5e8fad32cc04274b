/**
 * Work that would hold the event loop for a second or more (rendering a long PDF, summarising a long
 * transcript) done on a thread of its own, so requests in the same process keep being answered. One
 * thread per script, started on first use; it holds the process open only while it has work, and is
 * started again if it dies (what it held fails with the reason).
 */
import { backgroundWorkNice, lowerThisThreadPriority } from "./thread-priority.ts";

type Reply<R> = { id: number; result: R } | { id: number; error: string };
type Waiting<R> = { resolve(result: R): void; reject(error: Error): void };

export class BackgroundThread<Job, Result> {
  private thread: Worker | null = null;
  private lastId = 0;
  private readonly waiting = new Map<number, Waiting<Result>>();

  /**
   * `script` calls `serveOnThread`; `what` names the work in errors ("export rendering"); `smol`: JavaScriptCore's small
   * heap, collected more often, for threads whose work is short and whose memory comes on top of the process's.
   */
  constructor(
    private readonly script: URL,
    private readonly what: string,
    private readonly options: { smol?: boolean } = {},
  ) {}

  /** `transfer`: buffers in `job` handed over to the thread rather than copied (unusable here afterwards). */
  run(job: Job, transfer: ArrayBuffer[] = []): Promise<Result> {
    const worker = (this.thread ??= this.start());
    const id = ++this.lastId;
    return new Promise<Result>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.ref();
      try {
        worker.postMessage({ id, job }, transfer);
      } catch (error) {
        // Not sent (a buffer that cannot be handed over): nothing will answer it, so nothing waits for it.
        this.waiting.delete(id);
        if (this.waiting.size === 0) worker.unref();
        reject(error);
      }
    });
  }

  private start(): Worker {
    const worker = new Worker(this.script.href, { smol: this.options.smol ?? false });
    worker.unref();
    worker.onmessage = (event: MessageEvent<Reply<Result>>) => {
      const reply = event.data;
      const job = this.waiting.get(reply.id);
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      if (!job) return;
      if ("error" in reply) job.reject(new Error(`${this.what} failed: ${reply.error}`));
      else job.resolve(reply.result);
    };
    worker.onerror = (event) => {
      this.thread = null;
      // Ended, so that nothing it held (a transcript open on it) outlives it; the next job starts a new one.
      worker.terminate();
      const error = new Error(`${this.what} thread failed: ${event.message}`);
      for (const job of this.waiting.values()) job.reject(error);
      this.waiting.clear();
    };
    return worker;
  }
}

/** The thread's side: answers each job with `work`'s result, handing over the buffers `transfer` names. */
export function serveOnThread<Job, Result>(work: (job: Job) => Promise<Result> | Result, transfer: (result: Result) => ArrayBuffer[] = () => []): void {
  // Requests in the same process come first: this work takes whatever CPU they leave.
  lowerThisThreadPriority(backgroundWorkNice);
  addEventListener("message", async (event) => {
    // What BackgroundThread.run posts.
    const { id, job }: { id: number; job: Job } = event.data;
    try {
      const result = await work(job);
      postMessage({ id, result }, transfer(result));
    } catch (error) {
      postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
}
