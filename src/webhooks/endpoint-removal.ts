import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import { loadState } from "../core/state-cache.ts";
import { endpointsDecider } from "./decider.ts";
import { webhookEndpointsStream } from "./events.ts";

/**
 * Deletes every webhook endpoint of an account (an erased one's), without a sender for the deliveries it will
 * never make: their pending messages are cancelled by the delivery worker, as for an endpoint its owner deletes.
 * Returns how many were deleted.
 */
export async function deleteAllEndpoints(store: EventStore, userId: number, metadata: EventMetadata): Promise<number> {
  const stream = webhookEndpointsStream(userId);
  const { state } = await loadState(store, stream, endpointsDecider);
  let deleted = 0;
  for (const endpointId of state.endpoints.keys()) {
    const result = await handle(
      store,
      stream,
      endpointsDecider,
      (current) => (current.endpoints.has(endpointId) ? endpointsDecider.decide({ type: "DeleteEndpoint", endpointId }, current) : []),
      { metadata },
    );
    deleted += result.events.length;
  }
  return deleted;
}
