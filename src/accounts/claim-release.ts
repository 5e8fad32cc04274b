import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import { claimDecider, emailClaimStream, identityClaimStream } from "./claims.ts";

/**
 * Gives up an account's claims on its email and identities, so a new account may take them (an erased account's).
 * A claim it no longer holds (released before, or never its) is left as it is.
 */
export async function releaseClaims(
  store: EventStore,
  userId: number,
  email: string | null,
  identities: readonly ({ issuer: string; subject: string } | null)[],
  metadata: EventMetadata,
): Promise<void> {
  const streams = [
    ...(email === null ? [] : [emailClaimStream(email)]),
    ...identities.flatMap((identity) => (identity ? [identityClaimStream(identity.issuer, identity.subject)] : [])),
  ];
  for (const stream of streams) await handle(store, stream, claimDecider, (state) => claimDecider.decide({ type: "Release", userId }, state), { metadata });
}
