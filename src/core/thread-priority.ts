/**
 * CPU priorities of work done beside the event loop. Lowers the CPU priority of the calling thread alone (Linux
 * gives each thread its own nice value), for threads that do heavy work beside the event loop: a live session's
 * decoder, its diarization. On a small machine they would otherwise take turns with the event loop's thread as
 * equals, and every request would wait behind their slices (/api/health's p99 rose from about 1 ms to tens beside a
 * dozen sessions on two cores). At nice 10 such a thread still gets a tenth of a core the event loop keeps busy, and
 * all of an idle one: on two cores the event loop takes at most one. Recognisers of an account that already has one
 * running run behind everything else the same way (transcription/limiter.ts).
 *
 * Live decoders moved from nice 5 to 10 (and background work from 10 to 15, to stay behind them): beside hostile live
 * clients the event loop waited for decoder threads in 4 ms scheduler ticks, and /api/health's slowest answer was
 * 38-43 ms at 5 against 9-15 ms at 10 (five runs each of bench/live-hostile.bench.ts, alternated).
 */
import { dlopen, FFIType } from "bun:ffi";
import { setPriority } from "node:os";

/** Nice of the live decoders, which must keep up with real time: behind requests, ahead of background work. */
export const realTimeWorkNice = 10;

/** Nice of background threads (rendering exports, summarising, diarization): behind requests and live decoding. */
export const backgroundWorkNice = 15;

/** Sets the calling thread's nice; false where it cannot (not Linux, no libc): the thread then runs as it was. */
export function lowerThisThreadPriority(nice: number): boolean {
  if (process.platform !== "linux") return false;
  try {
    const libc = dlopen("libc.so.6", { gettid: { args: [], returns: FFIType.i32 } });
    try {
      setPriority(libc.symbols.gettid(), nice);
      return true;
    } finally {
      libc.close();
    }
  } catch {
    return false;
  }
}

/** Sets a child process's nice (its main thread's, which its other threads take when they start); false where it cannot. */
export function lowerProcessPriority(pid: number, nice: number): boolean {
  try {
    setPriority(pid, nice);
    return true;
  } catch {
    return false;
  }
}
