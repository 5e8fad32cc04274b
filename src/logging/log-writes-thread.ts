/**
 * The thread that writes log batches (off-thread-writes.ts): each under the shared lock, each only if not already
 * recorded written. A write that fails is said once and ends the thread's work: the other side writes from then on.
 */
import pino from "pino";
import { lockHolders, type OpenWrites } from "./off-thread-writes.ts";

declare const self: Worker;

let out: { write(text: string): unknown } | null = null;
let lock: Int32Array;
let written: BigInt64Array;

self.onmessage = (event: MessageEvent<OpenWrites | { number: number; text: string }>) => {
  const message = event.data;
  if ("fd" in message) {
    out = pino.destination({ dest: message.fd, sync: true });
    lock = new Int32Array(message.shared, 0, 1);
    written = new BigInt64Array(message.shared, 8, 1);
    return;
  }
  if (out === null) return;
  while (Atomics.compareExchange(lock, 0, lockHolders.free, lockHolders.heldByThread) !== lockHolders.free) Atomics.wait(lock, 0, lockHolders.heldHere, 50);
  try {
    if (BigInt(message.number) > Atomics.load(written, 0)) {
      out.write(message.text);
      Atomics.store(written, 0, BigInt(message.number));
    }
  } catch (error) {
    out = null;
    self.postMessage({ failed: error instanceof Error ? error.message : String(error) });
  } finally {
    Atomics.store(lock, 0, lockHolders.free);
    Atomics.notify(lock, 0);
  }
};
