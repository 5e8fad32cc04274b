import { reactingTo } from "../core/event.ts";
import type { Worker } from "../core/worker.ts";
import { userIdOf } from "../accounts/commands.ts";
import type { UserEvent } from "../accounts/events.ts";
import type { AccountErasure } from "./account-erasure.ts";

type AccountErased = Extract<UserEvent, { type: "AccountErased" }>;

/**
 * Finishes an account's erasure from its `AccountErased`, without its owner: a request (or `bun run admin erase`) that
 * failed after recording it (the store down, the process stopped) left its credentials revoked, so nobody could run it
 * again. `finish` checks what is left at each step and does nothing once the account's key is destroyed, so beside a
 * request that finishes it, this one finds little or nothing to do; a failure is delivered again.
 */
export function accountErasureWorker(erasure: Pick<AccountErasure, "finish">): Worker<AccountErased> {
  return {
    name: "account-erasure",
    subject: "scribe.user.AccountErased",
    eventTypes: ["AccountErased"],
    // An account with thousands of tasks takes a while: its delivery is not handed to another meanwhile.
    ackWaitMs: 600_000,
    async handle(recorded, message) {
      const userId = userIdOf(recorded);
      if (userId === null) return;
      message.inProgress();
      await erasure.finish(userId, reactingTo(recorded, "account-erasure"), { newestFirst: true });
    },
  };
}
