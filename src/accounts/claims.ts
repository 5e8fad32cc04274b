import { createHash } from "node:crypto";
import { assertNever, type Decider } from "../core/decider.ts";
import { ValidationFailedError } from "../core/errors.ts";
import type { EventStore } from "../core/event-store.ts";

/**
 * A unique key (an email address, an external identity) belongs to at most one account. Each key is
 * a stream of its own, so two registrations racing for one email meet on that stream's expected
 * revision and exactly one wins.
 */
export type ClaimEvent = { type: "KeyClaimed"; data: { userId: number } } | { type: "KeyReleased"; data: { userId: number } };

export type ClaimCommand =
  /**
   * `abandonedBy` names an owner the caller checked has no account: a registration that claimed the
   * key and died before creating the account leaves such a claim, which may be taken over.
   */
  { type: "Claim"; userId: number; abandonedBy: number | null; field: string; message: string } | { type: "Release"; userId: number };

export type ClaimState = { owner: number | null };

export const claimDecider: Decider<ClaimState, ClaimCommand, ClaimEvent> = {
  initialState: () => ({ owner: null }),
  evolve(_state, event) {
    switch (event.type) {
      case "KeyClaimed":
        return { owner: event.data.userId };
      case "KeyReleased":
        return { owner: null };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "Claim":
        if (state.owner === command.userId) return [];
        if (state.owner !== null && state.owner !== command.abandonedBy) throw new ValidationFailedError({ [command.field]: [command.message] });
        return [{ type: "KeyClaimed", data: { userId: command.userId } }];
      case "Release":
        return state.owner === command.userId ? [{ type: "KeyReleased", data: { userId: command.userId } }] : [];
      default:
        return assertNever(command);
    }
  },
};

/**
 * How old a claim must be before it may be taken over as abandoned when its owner has no account: younger, it may be a
 * registration still between its claim and its account (hashing a password, appending), and taking it over let
 * parallel registrations of one email each get an account.
 */
export const claimAbandonedAfterMs = 60_000;

/** Whether the stream's current claim was made at least `claimAbandonedAfterMs` before `now` (its last event's time). */
export async function claimOldEnoughToAbandon(store: Pick<EventStore, "readStream">, stream: string, now: Date): Promise<boolean> {
  const last = (await store.readStream(stream)).at(-1);
  return last !== undefined && now.getTime() - Date.parse(last.time) >= claimAbandonedAfterMs;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const digest = (value: string) => createHash("sha256").update(value).digest("hex").slice(0, 40);

export const emailClaimStream = (email: string) => `email-${digest(normalizeEmail(email))}`;
export const identityClaimStream = (issuer: string, subject: string) => `identity-${digest(`${issuer}\n${subject}`)}`;
