import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { noProjectionContext, type Projection, type ProjectionContext } from "../core/projection.ts";
import { Checkpoints, checkpointId } from "../../projections/checkpoints.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { Leases } from "../core/lease.ts";

export type CatchUpOptions = {
  /** How long to wait for a running server's projections, or for our own catch-up (a first one reads the whole log). */
  timeoutMs?: number;
  /** The log position the read models must reach (default: the log's end when called). */
  position?: number;
  /** What the projections read besides events: the blob store (the search read model reads transcripts). */
  context?: ProjectionContext;
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
 * Brings the read models up to the log's end (or `position`) before a CLI reads them or returns, without
 * ever being a second writer next to a running server: the projection writer is whoever holds the
 * `projections` lease (see core/lease.ts).
 *
 * - read models already there: nothing to do ("current");
 * - the lease is held by a server: wait for its saved checkpoints to get there ("server");
 * - nobody holds it (no server runs): take it, project here from the saved checkpoints, give it back ("caught-up").
 *
 * Throws when the read models do not get there within `timeoutMs`.
 */
export async function catchUpReadModels(
  store: EventStore,
  db: DocumentStore,
  projections: readonly Projection[],
  { timeoutMs = 300_000, position, context = noProjectionContext }: CatchUpOptions = {},
): Promise<"current" | "server" | "caught-up"> {
  if (projections.length === 0) return "current";
  const checkpoints = new Checkpoints(db);
  const load = () => Promise.all(projections.map((p) => checkpoints.load(checkpointId(p.name))));
  const target = position ?? (await logEnd(store, Math.min(...(await load()))));
  const reached = async () => (await load()).every((at) => at >= target);
  if (await reached()) return "current";

  const deadline = Date.now() + timeoutMs;
  const leases = new Leases(db);
  for (;;) {
    if ((await leases.acquire("projections", leaseMs)) !== null) break;
    // A server is the writer: it projects the events within moments.
    if (await reached()) return "server";
    if (Date.now() > deadline) throw new Error(`the read models did not reach log position ${target} within ${timeoutMs} ms`);
    await Bun.sleep(20);
  }
  await leases.whileHeld("projections", leaseMs, async (lease) => {
    const runner = new ProjectionRunner(store, db, projections, lease, context);
    try {
      await runner.start();
      await runner.waitFor(target, null, Math.max(1, deadline - Date.now()));
    } finally {
      await runner.stop();
    }
  });
  return "caught-up";
}

/** The CLI's hold on the projection writer's lease while it catches up; renewed at a third of it. */
const leaseMs = 30_000;
