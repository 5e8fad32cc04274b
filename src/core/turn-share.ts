/**
 * A bounded share of each turn of the event loop for background work that runs as chains of promises: projections
 * folding events and workers handling messages. The embedded stores answer synchronously, so an appended event woke
 * every projection's subscription and every worker at once, and all of them ran as one unbroken chain of promise
 * callbacks; a live session ending (its task created, charged and finished) held the event loop 10-25 ms in one piece,
 * and `/api/health` waited behind it.
 *
 * Each piece of background work runs through `inTurnShare`, one piece at a time: the next starts when the one before
 * settles, while this turn's background work has taken less than `turnShareMs`; the rest wait, in the order they came,
 * for the next turn, after timers and I/O have run. A piece still running when its turn ends (waiting on I/O, or a long
 * job) holds nothing back after that: each new turn starts the next piece waiting.
 */

/**
 * Background work run in one turn before the rest waits for the next: well under the 10 ms a probe may wait. 3 rather
 * than 4: with four clients creating maximal transcripts, `/api/health` p99 was 10.5-10.9 ms against 11.9-13.4 (two
 * runs each of bench/hostile-load.bench.ts, measured while the read models' WAL was left to grow), and the transcripts
 * were answered no later.
 */
export const turnShareMs = 3;

let sliceStartedAt = 0;
let sliceOpen = false;
/** The piece started in this turn that has not settled yet: the next waits for it. */
let running: object | null = null;
const waiting: { piece: object; start: () => void }[] = [];
let nextTurn: ReturnType<typeof setTimeout> | null = null;

/** The turn is over: a piece still running holds nothing back now, and the next waiting one starts. */
const closeSlice = () => {
  sliceOpen = false;
  running = null;
  startNext();
};

/** Whether this turn's share has time left; opens the turn's slice on the first ask. */
function shareLeft(): boolean {
  const now = performance.now();
  if (!sliceOpen) {
    sliceOpen = true;
    sliceStartedAt = now;
    // Runs once this turn's callbacks are done. A timer, not setImmediate: Bun ran immediates queued from promise
    // callbacks one after another without polling I/O or running timers between them (measured: 30 ms of such pieces
    // with no timer run), and timers keep their order.
    setTimeout(closeSlice, 0);
  }
  return now - sliceStartedAt < turnShareMs;
}

function waitForNextTurn(): void {
  nextTurn ??= setTimeout(() => {
    nextTurn = null;
    startNext();
  }, 0);
}

/** Starts the first waiting piece when none is running and this turn has time left; otherwise in a later turn. */
function startNext(): void {
  if (waiting.length === 0 || running !== null) return;
  if (!shareLeft()) {
    waitForNextTurn();
    return;
  }
  const next = waiting.shift()!;
  running = next.piece;
  next.start();
}

/** Runs `piece` when this turn has background time left and no other piece is running; resolves with its result. */
export async function inTurnShare<T>(piece: () => Promise<T> | T): Promise<T> {
  const mine = {};
  if (waiting.length === 0 && running === null && shareLeft()) running = mine;
  else {
    await new Promise<void>((start) => {
      waiting.push({ piece: mine, start });
      if (running === null) waitForNextTurn();
    });
  }
  try {
    return await piece();
  } finally {
    if (running === mine) running = null;
    startNext();
  }
}

/** How many pieces wait for a turn now (what a test of stopping needs to see). */
export const piecesWaiting = (): number => waiting.length;
