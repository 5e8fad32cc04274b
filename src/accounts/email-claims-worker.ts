import { reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { Worker } from "../core/worker.ts";
import { handle } from "../core/command-handler.ts";
import type { UserEvent } from "./events.ts";
import { loadState } from "../core/state-cache.ts";
import { userDecider } from "./decider.ts";
import { userIdOfStream, userStream } from "./events.ts";
import { claimDecider, emailClaimStream, normalizeEmail } from "./claims.ts";

/**
 * The process manager of an email change: once the account's `ProfileUpdated` says it gave an address
 * up, that address's claim is released, so another account may register with it. Releasing checks the
 * owner, and an address the account has taken back since keeps its claim, so a redelivery changes nothing.
 */
export function emailClaimsWorker(store: EventStore): Worker<Extract<UserEvent, { type: "ProfileUpdated" }>> {
  return {
    name: "email-claims",
    subject: "scribe.user.ProfileUpdated",
    eventTypes: ["ProfileUpdated"],
    async handle(recorded) {
      const previous = recorded.data.previousEmail;
      const userId = userIdOfStream(recorded.streamName);
      if (previous === undefined || userId === null) return;
      const { state: account } = await loadState(store, userStream(userId), userDecider);
      if (account.status === "registered" && normalizeEmail(account.email) === normalizeEmail(previous)) return;
      await handle(store, emailClaimStream(previous), claimDecider, (state) => claimDecider.decide({ type: "Release", userId }, state), {
        metadata: reactingTo(recorded, "email-claims"),
      });
    },
  };
}
