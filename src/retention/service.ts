import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { retentionDecider } from "./decider.ts";
import type { RetentionPolicyDocument } from "./retention-projection.ts";

/**
 * An account's retention as PUT and GET /api/user set and show it (the accounts' routes are handed this by the
 * composition root: accounts sit below retention). Set on the account's stream, read from `retention_policies`.
 */
export class Retention {
  private readonly accounts: AccountCommands;

  constructor(
    store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
    /** RETENTION_MAX_DAYS. */
    readonly maxDays: number,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.accounts = new AccountCommands(store);
  }

  async daysOf(userId: number): Promise<number | null> {
    return (await this.db.collection<RetentionPolicyDocument>("retention_policies").findOne({ _id: String(userId) }))?.days ?? null;
  }

  /** Waits for the read model, so a GET right after the answer shows it. */
  async set(userId: number, days: number | null, metadata: EventMetadata): Promise<void> {
    const command = { type: "SetRetention", days, maxDays: this.maxDays, now: this.now().toISOString() } as const;
    const result = await this.accounts.decideOnAccount(userId, retentionDecider, (state) => retentionDecider.decide(command, state), { metadata });
    if (result.position !== null) await this.waitFor(result.position, ["retention"]);
  }
}
