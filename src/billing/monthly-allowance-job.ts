import { bySystem } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { periodOf } from "../accounts/plans.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";

/**
 * Grants each account its plan's allowance when a new calendar month (UTC) starts. The decider
 * grants at most once per month, so several workers running this at once are harmless.
 */
export async function grantMonthlyAllowances(store: EventStore, db: DocumentStore, now: Date): Promise<number> {
  const period = periodOf(now);
  const due = await db.collection<UserDocument>("users").find({ "ledger.period": { $lt: period } }, { limit: 1000 });
  const accounts = new AccountCommands(store);
  let granted = 0;
  for (const user of due) {
    const result = await accounts.run(
      user.id,
      { type: "GrantMonthlyAllowance", now: now.toISOString() },
      {
        metadata: bySystem("monthly-allowance", `monthly-allowance-${period}`),
      },
    );
    if (result.events.length > 0) granted++;
  }
  return granted;
}

/** Checks every few minutes, so a month starts for everyone within minutes of midnight UTC. */
export function startMonthlyAllowanceJob(store: EventStore, db: DocumentStore, everyMs = 5 * 60_000): PeriodicJob {
  return startPeriodicJob(
    "monthly allowance job",
    async () => {
      while ((await grantMonthlyAllowances(store, db, new Date())) > 0);
    },
    { everyMs, firstAfterMs: 1000, across: db },
  );
}
