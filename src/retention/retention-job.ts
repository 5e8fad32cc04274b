import { bySystem } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { AccountCommands } from "../accounts/commands.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { logger } from "../logging/logger.ts";
import { retentionDecider } from "./decider.ts";
import { candidatesCreatedThrough, planRetention, warnedThrough, type AgedTask } from "./policy.ts";
import type { RetentionPolicyDocument } from "./retention-projection.ts";

const log = logger("jobs");

/** How often the job looks: a batch is deleted within this time after its day of notice ends. */
const retentionEveryMs = 60 * 60_000;
/** Accounts read at once from the read model. */
const accountsPage = 200;
/** The most tasks of one account looked at in one run (an account that just set a short retention over years of tasks finishes on the next runs). */
export const tasksPerRun = 10_000;

/** `tasksPerRun`: tasksPerRun unless given (tests give fewer). */
export type RetentionParts = { store: EventStore; db: DocumentStore; tasks: Tasks; tasksPerRun?: number };
export type RetentionRun = { warned: number; deleted: number };

/** The account's tasks old enough to be due or warned of at `now`, oldest first. */
async function candidates(db: DocumentStore, userId: number, days: number, now: Date, limit: number): Promise<AgedTask[]> {
  const found = await db
    .collection<TaskDocument>("tasks")
    .find({ userId, createdAt: { $lte: candidatesCreatedThrough(days, now) } }, { sort: { id: 1 }, limit });
  return found.map((task) => ({ id: task.id, createdAt: task.createdAt }));
}

/** How many of the account's tasks a warning covers, counted in the read model: for an account with more than one run looks at. */
async function countCovered(db: DocumentStore, userId: number, createdThrough: string, announced: string | null): Promise<number> {
  const tasks = db.collection<TaskDocument>("tasks");
  const upTo = await tasks.countDocuments({ userId, createdAt: { $lte: createdThrough } });
  return announced === null ? upTo : upTo - (await tasks.countDocuments({ userId, createdAt: { $lte: announced } }));
}

/**
 * One account: warns of its next batch, then deletes the batch whose day of notice is over, through the tasks' own
 * delete command (acting as the system `retention`), so that deleting by retention is deleting as the owner does.
 */
async function applyToAccount({ store, db, tasks, tasksPerRun: limit = tasksPerRun }: RetentionParts, userId: number, now: Date): Promise<RetentionRun> {
  const accounts = new AccountCommands(store);
  const { state } = await accounts.loadOnAccount(userId, retentionDecider);
  if (!state.registered || state.days === null) return { warned: 0, deleted: 0 };
  const days = state.days;
  const found = await candidates(db, userId, days, now, limit);
  const plan = planRetention(state, found, now);
  const metadata = bySystem("retention", crypto.randomUUID());
  let warned = 0;
  if (plan.warning) {
    const { createdThrough } = plan.warning;
    const taskCount = found.length < limit ? plan.warning.taskCount : await countCovered(db, userId, createdThrough, warnedThrough(state));
    const command = { type: "WarnOfDeletion", userId, days, ...plan.warning, taskCount, now: now.toISOString() } as const;
    const result = await accounts.decideOnAccount(userId, retentionDecider, (current) => retentionDecider.decide(command, current), { metadata });
    warned = result.events.length;
  }
  const deleted = plan.due.length === 0 ? 0 : await tasks.removeMany(userId, plan.due, metadata);
  return { warned, deleted };
}

/** Every account with a retention, once; says how many warnings it gave and tasks it deleted. Safe to run in several processes. */
export async function applyRetention(parts: RetentionParts, now: Date = new Date()): Promise<RetentionRun> {
  const total: RetentionRun = { warned: 0, deleted: 0 };
  const policies = parts.db.collection<RetentionPolicyDocument>("retention_policies");
  for (let skip = 0; ; skip += accountsPage) {
    const page = await policies.find({ active: true }, { sort: { userId: 1 }, skip, limit: accountsPage });
    for (const policy of page) {
      try {
        const run = await applyToAccount(parts, policy.userId, now);
        total.warned += run.warned;
        total.deleted += run.deleted;
      } catch (error) {
        // One account's failure (its stream busy, a task refusing) must not hold up the others': the next run tries again.
        log.error({ job: "retention", userId: policy.userId, err: error }, "retention failed for an account");
      }
    }
    if (page.length < accountsPage) break;
  }
  if (total.warned + total.deleted > 0) log.info({ job: "retention", ...total }, "retention applied");
  return total;
}

/** Hourly in the workers role, once across processes (a lease on the document store). */
export function startRetentionJob(parts: RetentionParts, everyMs = retentionEveryMs): PeriodicJob {
  return startPeriodicJob(
    "retention",
    async () => {
      await applyRetention(parts);
    },
    { everyMs, firstAfterMs: 30_000, across: parts.db },
  );
}
