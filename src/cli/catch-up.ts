import type { EventStore } from "../eventstore/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Projection } from "../../projections/projection.ts";
import { Checkpoints } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";

export type CatchUpOptions = {
  /** How long the checkpoints may stand still, behind the log, before we conclude no server is projecting. */
  quietMs?: number;
  /** How long our own catch-up may take (a first catch-up reads the whole log). */
  timeoutMs?: number;
};

/** The log's last position, read forward from `after` (the oldest checkpoint), so a current read model costs one query. */
async function logEnd(store: EventStore, after: number): Promise<number> {
  let end = after;
  for (;;) {
    const batch = await store.readAll({ after: end, limit: 1000 });
    if (batch.length === 0) return end;
    end = batch[batch.length - 1]!.position;
  }
}

/**
 * Brings the read models up to the log's current end before a CLI reads them, without ever being a
 * second writer next to a running server: projections are idempotent per event, but their
 * read-check-write is not atomic across processes, so two writers could put an older document back.
 *
 * - read models at the log's end: nothing to do;
 * - checkpoints moving: a server is projecting; wait until they reach the end;
 * - checkpoints standing still for `quietMs` (the server polls the log every ~100 ms and saves a
 *   checkpoint ~10 ms after each event, so a live one moves well within a second): no server runs,
 *   or none ever did; catch up here with the projection runner, from the saved checkpoints. (A
 *   server started during those moments would briefly be a second writer: an operator's race.)
 *
 * Returns "current", "server" or "caught-up" (for tests and diagnostics).
 */
export async function catchUpReadModels(
  store: EventStore,
  db: DocumentStore,
  projections: readonly Projection[],
  { quietMs = 1000, timeoutMs = 300_000 }: CatchUpOptions = {},
): Promise<"current" | "server" | "caught-up"> {
  if (projections.length === 0) return "current";
  const checkpoints = new Checkpoints(db);
  const load = () => Promise.all(projections.map((p) => checkpoints.load(`projection:${p.name}`)));
  let seen = await load();
  const end = await logEnd(store, Math.min(...seen));
  if (seen.every((position) => position >= end)) return "current";

  let lastMove = Date.now();
  while (Date.now() - lastMove < quietMs) {
    await Bun.sleep(20);
    const now = await load();
    if (now.every((position) => position >= end)) return "server";
    if (now.some((position, i) => position !== seen[i])) lastMove = Date.now();
    seen = now;
  }

  const runner = new ProjectionRunner(store, db, projections);
  await runner.start();
  try {
    await runner.waitFor(end, null, timeoutMs);
  } finally {
    await runner.stop();
  }
  return "caught-up";
}
