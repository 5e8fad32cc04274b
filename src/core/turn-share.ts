/**
 * A bounded share of each turn of the event loop for background work that runs as chains of promises: projections
 * folding events and workers handling messages. The embedded stores answer synchronously, so an appended event woke
 * every projection's subscription and every worker at once, and all of them ran as one unbroken chain of microtasks;
 * a live session ending (its task created, charged and finished) held the event loop 10-25 ms in one piece, and
 * `/api/health` waited behind it. Each piece of background work asks first (`takeTurnShare`): once the work of this
 * turn has taken `turnShareMs`, the rest waits for the next turn, after the event loop has polled for I/O.
 */

/** Background work run in one turn before the rest waits for the next: well under the 10 ms a probe may wait. */
export const turnShareMs = 4;

let sliceStartedAt = 0;
let sliceOpen = false;
let nextTurn: Promise<void> | null = null;

const closeSlice = () => {
  sliceOpen = false;
};

/** Null while this turn's share lasts (go on now); otherwise a promise of the next turn, to wait for and ask again. */
function shareLeft(): Promise<void> | null {
  const now = performance.now();
  if (!sliceOpen) {
    sliceOpen = true;
    sliceStartedAt = now;
    // Runs once this turn's callbacks are done: the next piece of work then starts a slice of its own. A timer, not
    // setImmediate: Bun ran immediates queued from promise callbacks without polling I/O or running timers between
    // them (measured: 30 ms of such pieces with no timer run), and timers keep their order, so this runs first.
    setTimeout(closeSlice, 0);
    return null;
  }
  if (now - sliceStartedAt < turnShareMs) return null;
  nextTurn ??= new Promise<void>((resolve) =>
    setTimeout(() => {
      nextTurn = null;
      resolve();
    }, 0),
  );
  return nextTurn;
}

/**
 * Resolves when this turn has background time left: at once (after one microtask) while it has. The time is read when
 * asked, so pieces that ask at the same moment (every subscription woken by one append) all take their first piece in
 * that turn; each asks again before its next, and from then on a turn holds about the share.
 */
export async function takeTurnShare(): Promise<void> {
  for (let wait = shareLeft(); wait !== null; wait = shareLeft()) await wait;
}
