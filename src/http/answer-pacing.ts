/**
 * How many answers go out in one turn of the event loop before the rest wait for the next turn.
 *
 * Bun accepts new connections in a loop that runs until the kernel has none waiting, and it reads and answers each
 * one inside that loop (it asks for TCP_DEFER_ACCEPT, so the request is already there). Clients that open a fresh
 * connection for every request and send the next one as soon as an answer comes back keep that loop going: it never
 * returns to epoll, and the requests on connections already open wait until the clients pause. Four such clients
 * sending refused 1 MiB registrations held a keep-alive `/api/health` for up to 430 ms at a time (p99 72 ms over
 * 10 s, bench/hostile-load.bench.ts); a bare Bun server that takes 0.4 ms a request does the same. A client that is
 * not answered does not send again, so holding the answers past a few per turn ends the accept loop, and epoll
 * serves every open connection in turn.
 */
export const answersPerTurn = 8;

/**
 * Nor do answers go out once the turn has spent this long since its first: eight costly requests (88 KB registrations
 * read, parsed and refused, about 1 ms each on a loaded machine) still held a keep-alive `/api/health` behind them.
 */
export const answeringMsPerTurn = 2;

// Process-wide on purpose: the event loop, and so the turn, is the process's, whichever app answers.
let answeredThisTurn = 0;
let firstAnsweredAt = 0;
let held: (() => void)[] = [];
let turnEndQueued = false;

/** Runs after the poll for I/O: the count starts again, and the answers held in the turn that ended go out in order. */
function turnEnded(): void {
  answeredThisTurn = 0;
  turnEndQueued = false;
  const release = held;
  held = [];
  for (const send of release) send();
}

/**
 * `response` as it is while fewer than `answersPerTurn` answers went out in this turn, within `answeringMsPerTurn` of
 * its first; past either, a promise of it that settles in the next turn. Keep-alive traffic is rarely held: a turn
 * reads one request from each connection epoll found ready, and a turn that answers more than a few has many
 * connections behind it.
 */
export function pacedAnswer(response: Response): Response | Promise<Response> {
  const now = performance.now();
  if (++answeredThisTurn === 1) firstAnsweredAt = now;
  if (!turnEndQueued) {
    turnEndQueued = true;
    setImmediate(turnEnded);
  }
  if (answeredThisTurn <= answersPerTurn && now - firstAnsweredAt <= answeringMsPerTurn) return response;
  return new Promise((resolve) => held.push(() => resolve(response)));
}
