import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import { endpointsDecider } from "./decider.ts";
import { webhookEndpointsStream } from "./events.ts";

/**
 * Deletes every webhook endpoint of an account (an erased one's), without a sender for the deliveries it will
 * never make: their pending messages are cancelled by the delivery worker, as for an endpoint its owner deletes.
 * Returns how many were deleted.
 */
export async function deleteAllEndpoints(store: EventStore, userId: number, metadata: EventMetadata): Promise<number> {
  // One decision over the state as it stands: every endpoint it still has, deleted in one append.
  const result = await handle(
    store,
    webhookEndpointsStream(userId),
    endpointsDecider,
    (current) => [...current.endpoints.keys()].flatMap((endpointId) => endpointsDecider.decide({ type: "DeleteEndpoint", endpointId }, current)),
    { metadata },
  );
  return result.events.length;
}
