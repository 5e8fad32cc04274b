import type { Subscription } from "../src/core/event-store.ts";
import type { Projection } from "../src/core/projection.ts";

/** A projection as the runner runs it: its subscription, how far it got, and how it is doing. */
export type Running = {
  projection: Projection;
  /** Null only until its first subscribe, right after it is made. */
  subscription: Subscription | null;
  processed: number;
  saveTimer: Timer | null;
  failures: number;
  retry: Timer | null;
  paused: boolean;
  /** Whether an event is being applied now: a wait on this projection is not stalled then. */
  applying: boolean;
  /** When its subscription first failed since it last applied an event (null while it runs). */
  failingSince: number | null;
};

/** A projection about to run from the log position `after`. */
export function startingAt(projection: Projection, after: number): Running {
  return { projection, subscription: null, processed: after, saveTimer: null, failures: 0, retry: null, paused: false, applying: false, failingSince: null };
}
