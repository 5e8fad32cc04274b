/**
 * The thread that writes log batches (off-thread-writes.ts): each under the shared lock, each only if not already
 * recorded written, and none once the lock is retired. A write that fails is said once, after the lock is released,
 * and ends the thread's work: the other side writes from then on.
 */
import pino from "pino";
import { lockWords, type OpenWrites } from "./off-thread-lock.ts";

declare const self: Worker;

let out: { write(text: string): unknown } | null = null;
let lock: Int32Array;
let written: BigInt64Array;

/** The lock, or false once it is retired. Waits while the event loop's thread wants it or holds it. */
function take(): boolean {
  for (;;) {
    if (Atomics.load(lock, lockWords.wantedHere) === 1) {
      Atomics.wait(lock, lockWords.wantedHere, 1, 50);
      continue;
    }
    const holder = Atomics.compareExchange(lock, lockWords.holder, lockWords.free, lockWords.heldByThread);
    if (holder === lockWords.free) return true;
    if (holder === lockWords.retired) return false;
    Atomics.wait(lock, lockWords.holder, holder, 50);
  }
}

self.onmessage = (event: MessageEvent<OpenWrites | { number: number; text: string }>) => {
  const message = event.data;
  if ("fd" in message) {
    out = pino.destination({ dest: message.fd, sync: true });
    lock = new Int32Array(message.shared, 0, 2);
    written = new BigInt64Array(message.shared, 8, 1);
    return;
  }
  if (out === null || !take()) return;
  let failure: string | null = null;
  try {
    if (BigInt(message.number) > Atomics.load(written, 0)) {
      out.write(message.text);
      Atomics.store(written, 0, BigInt(message.number));
    }
  } catch (error) {
    out = null;
    failure = error instanceof Error ? error.message : String(error);
  } finally {
    Atomics.compareExchange(lock, lockWords.holder, lockWords.heldByThread, lockWords.free);
    Atomics.notify(lock, lockWords.holder);
  }
  if (failure !== null) self.postMessage({ failed: failure });
};
