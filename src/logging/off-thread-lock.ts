/**
 * The words the log writer and its thread share (off-thread-writes.ts, log-writes-thread.ts): who holds the lock, and
 * whether the event loop's thread waits for it, which makes the writing thread hold back its next batch.
 */
export const lockWords = {
  /** Index of the word saying who holds the lock. */
  holder: 0,
  /** Index of the word that is 1 while the event loop's thread waits for the lock. */
  wantedHere: 1,
  free: 0,
  heldByThread: 1,
  heldHere: 2,
  /** The thread may never take the lock again: everything is written by the event loop's thread. */
  retired: 3,
} as const;

/** What the thread is told first: where to write, and the shared lock (an Int32Array's two words) and count. */
export type OpenWrites = { fd: 1 | 2; shared: SharedArrayBuffer };
