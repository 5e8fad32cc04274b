import type { EventStore } from "../src/core/event-store.ts";

/** How far a projection is behind the log: the events it has not folded yet, and how old the oldest of them is. */
export type ProjectionLag = { projection: string; events: number; seconds: number };

/** Lag beyond this many events is reported as this many: reading further would make a scrape as slow as the lag is large. */
export const lagCountLimit = 10_000;

/**
 * Each projection's lag behind the log, from the position it has folded up to. Events are counted by reading
 * them (EventStoreDB's positions are byte offsets, not counts); projections at the same position share one read.
 */
export async function projectionLags(store: EventStore, positions: ReadonlyMap<string, number>, now = Date.now()): Promise<ProjectionLag[]> {
  const behindAt = new Map<number, Promise<{ events: number; seconds: number }>>();
  const behind = (position: number) => {
    let measured = behindAt.get(position);
    if (!measured) {
      measured = store.readAll({ after: position, limit: lagCountLimit }).then((events) => ({
        events: events.length,
        seconds: events.length === 0 ? 0 : Math.max(0, (now - Date.parse(events[0]!.time)) / 1000),
      }));
      behindAt.set(position, measured);
    }
    return measured;
  };
  return Promise.all([...positions].map(async ([projection, position]) => ({ projection, ...(await behind(position)) })));
}
