/**
 * An account's retention, on its stream `user-<id>` beside the account's own facts: tasks older than `days` (by their
 * creation) are deleted by the retention job, a day after it warned of them.
 */
export type RetentionEvent =
  /** `days` null: tasks are kept until their owner deletes them (the default). */
  | { type: "RetentionSet"; data: { days: number | null; previousDays: number | null; setAt: string } }
  /**
   * The owner was told that `taskCount` tasks, every one created at or before `createdThrough` not covered by an
   * earlier warning, will be deleted once `deleteAfter` has passed (a day after `warnedAt`): the notification's fact.
   */
  | {
      type: "RetentionWarningGiven";
      data: { userId: number; days: number; taskCount: number; createdThrough: string; deleteAfter: string; warnedAt: string };
    };

export const retentionEventTypes = ["RetentionSet", "RetentionWarningGiven"] as const satisfies readonly RetentionEvent["type"][];
