import { Checkpoints } from "../../projections/checkpoints.ts";
import type { TestApp } from "./test-app.ts";

/**
 * Polls `probe` until it gives a truthy value, which it returns, or throws naming `what` after `timeoutMs`: for
 * what a test can only watch happen (a worker's status, a browser's player, a file on disk).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(everyMs);
  }
}

/**
 * Waits until the workers of an in-process app (test-app.ts) have handled every event up to `position`, by default the
 * last one in the log now: the moment after which a worker that was going to react to an event has done so, and what
 * it did not do it will not do. It reads the relay's checkpoint: on the in-process bus a publish settles once every
 * worker subscribed to it has acknowledged the message, and the relay's checkpoint passes an event only once that event
 * and all before it have settled (workers/relay.ts).
 */
export async function workersCaughtUp(app: TestApp, position?: number, timeoutMs = 20_000): Promise<void> {
  const target = position ?? (await app.adapters.eventStore.readAll()).at(-1)?.position ?? 0;
  const checkpoints = new Checkpoints(app.adapters.documents);
  await until(`the workers to handle the log up to position ${target}`, async () => (await checkpoints.load("relay")) >= target, timeoutMs);
}
