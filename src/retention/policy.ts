/**
 * Which of an account's tasks the retention job deletes now, and whether it warns of others first: pure, the clock
 * and the tasks come in. Tasks are deleted in daily batches: a warning covers every task that reaches its retention
 * within a day and was not covered before, and the batch is deleted a day after the warning. So every task is
 * announced at least a day ahead (also those already past their retention when the retention is set or shortened),
 * the owner hears of a batch once, not every hour, and a task is kept at most about a day beyond its retention.
 */
export const dayMs = 24 * 60 * 60 * 1000;

/** What the account's stream says about its retention (folded by the retention model, decider.ts). */
export type RetentionState = {
  registered: boolean;
  /** null: tasks are kept until deleted. */
  days: number | null;
  /** Tasks created at or before this were warned of more than a day ago: deleted once past their retention. */
  maturedThrough: string | null;
  /** The newest warning, which may be less than a day old; null since the retention was last set. */
  latest: { createdThrough: string; deleteAfter: string } | null;
};

export const noRetention: RetentionState = { registered: false, days: null, maturedThrough: null, latest: null };

/** A task as the job sees it: its id and when it was created. */
export type AgedTask = { id: number; createdAt: string };

export type RetentionPlan = {
  /** Past their retention and announced more than a day ago: deleted now. */
  due: number[];
  /** A warning to give now (and its notification), or null. */
  warning: { taskCount: number; createdThrough: string; deleteAfter: string } | null;
};

const at = (iso: string) => Date.parse(iso);

/** Tasks created at or before this are announced (by any warning so far). */
export function warnedThrough(state: RetentionState): string | null {
  return state.latest?.createdThrough ?? state.maturedThrough;
}

/** Tasks created at or before this were announced more than a day before `now`. */
function deletableThrough(state: RetentionState, now: Date): string | null {
  if (state.latest && at(state.latest.deleteAfter) <= now.getTime()) return state.latest.createdThrough;
  return state.maturedThrough;
}

/** Whether a day has passed since the newest warning (or there is none), so that another may be given. */
export function mayWarn(state: RetentionState, now: Date): boolean {
  return state.latest === null || at(state.latest.deleteAfter) <= now.getTime();
}

/** The latest creation time a task may have to reach its retention of `days` by `when`. */
export const createdBy = (days: number, when: number) => new Date(when - days * dayMs).toISOString();

/** The tasks to look at: none created after this can be due or warned of at `now` (the job asks the read model for these). */
export const candidatesCreatedThrough = (days: number, now: Date) => createdBy(days, now.getTime() + dayMs);

export function planRetention(state: RetentionState, tasks: readonly AgedTask[], now: Date): RetentionPlan {
  if (state.days === null) return { due: [], warning: null };
  const deletable = deletableThrough(state, now);
  const pastRetention = at(createdBy(state.days, now.getTime()));
  const due = deletable === null ? [] : tasks.filter((t) => at(t.createdAt) <= pastRetention && at(t.createdAt) <= at(deletable)).map((t) => t.id);
  if (!mayWarn(state, now)) return { due, warning: null };
  const createdThrough = candidatesCreatedThrough(state.days, now);
  const announced = warnedThrough(state);
  const upcoming = tasks.filter((t) => at(t.createdAt) <= at(createdThrough) && (announced === null || at(t.createdAt) > at(announced)));
  if (upcoming.length === 0) return { due, warning: null };
  return { due, warning: { taskCount: upcoming.length, createdThrough, deleteAfter: new Date(now.getTime() + dayMs).toISOString() } };
}
