import type { Semaphore } from "../core/semaphore.ts";
import type { RequestContext } from "./request-origin.ts";

/**
 * The heavy-work slot a request with a large body holds (see request-limits.ts), from before its body is
 * read until its handler is done (`releaseHeavyWork` in the few routes that take large bodies) or it fails
 * (the error handler). Not an after-response hook: a global one would run for every request, reads
 * included, to serve three routes.
 */
type Held = { release: () => void; readWhole: boolean };

const held = new WeakMap<Request, Held>();

export function holdHeavyWork(request: Request, release: () => void): void {
  held.set(request, { release, readWhole: false });
}

/** Bun's default: a connection that sends and receives nothing this long is closed. */
export const idleTimeoutSeconds = 10;

/**
 * Waits for a heavy-work slot, then holds it for the request. The body waits unread meanwhile, and Bun closes a
 * connection idle for 10 s: a large transcript queued behind two others (10-20 s each) lost its connection and was
 * answered 400, the client seeing no answer at all. The idle timer is off while it waits, and back once it has a
 * slot, so a body that then stops arriving is still let go.
 */
export async function waitForHeavyWork(request: Request, heavyWork: Semaphore, server: RequestContext["server"]): Promise<void> {
  // None in process, through `app.handle`.
  server?.timeout?.(request, 0);
  try {
    holdHeavyWork(request, await heavyWork.acquire());
  } finally {
    server?.timeout?.(request, idleTimeoutSeconds);
  }
}

export function holdsHeavyWork(request: Request): boolean {
  return held.has(request);
}

/** A request replaced by a copy of itself (bounded-body-parser.ts, a streamed form) takes its slot along. */
export function moveHeavyWork(from: Request, to: Request): void {
  const slot = held.get(from);
  if (!slot) return;
  held.delete(from);
  held.set(to, slot);
}

/** The body was read whole: its garbage is worth collecting when the slot is given back. */
export function markReadWhole(request: Request): void {
  const slot = held.get(request);
  if (slot) slot.readWhole = true;
}

/** Gives the request's slot back, if it holds one; collects the garbage of a large body first. Idempotent. */
export function releaseHeavyWork(request: Request): void {
  const slot = held.get(request);
  if (!slot) return;
  held.delete(request);
  // What the body left (its text, the parsed and validated copies) is garbage now: collected before the
  // next large body comes in, rather than piled up under it (~10-50 ms each).
  if (slot.readWhole) Bun.gc(true);
  slot.release();
}
