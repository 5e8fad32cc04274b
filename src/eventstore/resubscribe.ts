import type { RecordedEvent } from "../core/event.ts";
import type { EventHandler, Subscription } from "../core/event-store.ts";
import { backoffMs } from "../core/backoff.ts";
import { logger } from "../logging/logger.ts";

const subscriptionLog = logger("eventstore");

/** One attempt at a live feed of the log from `after` (exclusive; undefined: from the start). */
export type FeedSource = { events: AsyncIterable<RecordedEvent>; close(): Promise<void> };

export type ResubscribeOptions = {
  name: string;
  /** Back-off after the n-th failure in a row (default 0.5 s doubling to 30 s). */
  delayMs?: (failures: number) => number;
  log?: (message: string) => void;
};

class HandlerFailure {
  constructor(readonly cause: unknown) {}
}

/**
 * A subscription that outlives its connection: when the feed fails or ends (a server restart, a leader
 * change, a network reset, a keep-alive timeout), it opens a new one from the last event the handler
 * finished, after a back-off that grows with failures in a row. Only the handler's own failure ends it
 * (`done` rejects with it), since that is the subscriber's to decide about.
 */
export function resubscribing(
  open: (after: number | undefined) => FeedSource,
  after: number | undefined,
  handler: EventHandler,
  options: ResubscribeOptions,
): Subscription {
  const delayMs = options.delayMs ?? backoffMs;
  const log = options.log ?? ((message: string) => subscriptionLog.warn({ subscription: options.name, after: last ?? null }, message));
  let stopped = false;
  let current: FeedSource | null = null;
  let wake: (() => void) | null = null;
  let last = after;

  const run = async () => {
    let failures = 0;
    while (!stopped) {
      const source = (current = open(last));
      try {
        for await (const event of source.events) {
          if (stopped) return;
          if (last !== undefined && event.position <= last) continue;
          try {
            await handler(event);
          } catch (error) {
            throw new HandlerFailure(error);
          }
          last = event.position;
          failures = 0;
        }
        if (stopped) return;
        failures++;
        log(`${options.name}: the feed ended; subscribing again after position ${last ?? "start"}`);
      } catch (error) {
        if (error instanceof HandlerFailure) throw error.cause;
        if (stopped) return;
        failures++;
        log(
          `${options.name}: the feed failed (${error instanceof Error ? error.message : String(error)}); subscribing again after position ${last ?? "start"}`,
        );
      } finally {
        current = null;
        await source.close().catch(() => undefined);
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, delayMs(failures));
      });
      wake = null;
    }
  };

  const done = run();
  return {
    done,
    async stop() {
      stopped = true;
      wake?.();
      await current?.close().catch(() => undefined);
      await done.catch(() => undefined);
    },
  };
}
