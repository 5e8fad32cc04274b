import { assertNever } from "../core/decider.ts";
import { balanceView, type BalanceLedger } from "../accounts/balance.ts";
import { plans, type BillingInterval, type PlanKey } from "../accounts/plans.ts";

/**
 * What a notification says (spec 2.5's title and message), and the task it is about (null for the account's own:
 * plan, balance, webhooks), which the app links to; the read model adds id, times and owner.
 */
export type NotificationContent = { kind: NotificationKind; title: string; message: string; taskId: number | null };
export type NotificationKind =
  | "plan_changed"
  | "balance_low"
  | "task_finished"
  | "task_failed"
  | "export_ready"
  | "webhook_disabled"
  | "task_problem"
  | "retention_warning";

/**
 * Task events that notify their owner. The tasks and exports capabilities own these events (later
 * issues); they are written on `task-<id>` and must carry the owner in `data.userId`, because a
 * projection sees one event at a time and cannot look the task up.
 */
export type TaskNotificationEvent =
  | { type: "TaskFinished"; data: { userId: number; taskId: number; name: string } }
  | { type: "TaskFailed"; data: { userId: number; taskId: number; name: string; reason: string } }
  | { type: "ExportReady"; data: { userId: number; taskId: number; format: string } }
  /** The export worker's fact; it notifies only when `requested` (a download was told to wait for it). */
  | { type: "ExportGenerated"; data: { userId: number; taskId: number; format: string; requested?: boolean } };

export const taskNotificationEventTypes: readonly TaskNotificationEvent["type"][] = ["TaskFinished", "TaskFailed", "ExportReady", "ExportGenerated"];

/** Below this many seconds the balance is low, whatever the plan. */
export const lowBalanceSeconds = 60;
/** ...and below this share of the period's total (used + remaining). */
export const lowBalanceShare = 0.1;

export function isBalanceLow(ledger: BalanceLedger): boolean {
  const { remaining_seconds: remaining, total_seconds: total } = balanceView(ledger);
  return remaining < lowBalanceSeconds || remaining < total * lowBalanceShare;
}

/**
 * Warn on the charge that crosses into "low", not on every charge after it: once per period, and once
 * more only if a top-up, plan change or the next monthly grant lifted the balance back above the line.
 */
export function balanceLowAfterCharge(before: BalanceLedger, after: BalanceLedger): NotificationContent | null {
  if (isBalanceLow(before) || !isBalanceLow(after)) return null;
  const remaining = balanceView(after).remaining_seconds;
  return {
    kind: "balance_low",
    taskId: null,
    title: "Balance low",
    message: `You have ${formatDuration(remaining)} of transcription time left. Top up or change your plan to keep transcribing.`,
  };
}

const billed: Record<BillingInterval, string> = { none: "", month: ", billed monthly", year: ", billed yearly" };

export function planChanged(plan: PlanKey, interval: BillingInterval): NotificationContent {
  return { kind: "plan_changed", taskId: null, title: "Plan changed", message: `Your plan is now ${plans[plan].name}${billed[interval]}.` };
}

export function taskNotification(event: TaskNotificationEvent): NotificationContent {
  const { taskId } = event.data;
  switch (event.type) {
    case "TaskFinished":
      return { kind: "task_finished", taskId, title: "Task finished", message: `"${event.data.name}" is transcribed and ready.` };
    case "TaskFailed":
      return { kind: "task_failed", taskId, title: "Task failed", message: `"${event.data.name}" could not be transcribed: ${event.data.reason}` };
    case "ExportReady":
    case "ExportGenerated":
      return {
        kind: "export_ready",
        taskId,
        title: "Export ready",
        message: `The ${event.data.format.toUpperCase()} export of task ${event.data.taskId} is ready to download.`,
      };
    default:
      return assertNever(event);
  }
}

/**
 * The webhooks capability's fact that an endpoint was disabled (its deliveries kept failing, or it answered
 * 410 Gone), on `webhooks-<user id>`; described here by shape, as notifications sit below webhooks.
 */
export type WebhookDisabledEvent = { type: "WebhookEndpointDisabled"; data: { userId: number; endpointId: string; url: string; reason: string } };

export function webhookDisabled(event: WebhookDisabledEvent): NotificationContent {
  // Origin and path only: a token in the query string stays out of the notification.
  let where = event.data.url;
  try {
    const url = new URL(where);
    where = `${url.origin}${url.pathname}`;
  } catch {
    // shown as registered
  }
  return {
    kind: "webhook_disabled",
    taskId: null,
    title: "Webhook disabled",
    message: `Nothing more is sent to ${where}: ${event.data.reason}. Fix the receiver, then register it again.`,
  };
}

/**
 * The dead-letters capability's fact that a worker set a message aside (it failed on every delivery), described by
 * shape: notifications sit below it. `task` is null unless the message was about a task; `occurrence` is 1 the first
 * time (a retry by the operator that fails again is not news to the owner).
 */
export type MessageDeadLetteredEvent = {
  type: "MessageDeadLettered";
  data: { occurrence: number; task: { taskId: number; userId: number; name: string | null } | null };
};

export function taskProblem(task: { taskId: number; name: string | null }): NotificationContent {
  const which = task.name === null ? `task ${task.taskId}` : `task "${task.name}"`;
  return {
    kind: "task_problem",
    taskId: task.taskId,
    title: "Task problem",
    message: `Processing of ${which} hit a problem and was set aside for the operator, who can run it again once it is fixed.`,
  };
}

/**
 * The retention capability's warning that a batch of the account's tasks will be deleted a day from now (its
 * retention, src/retention), on `user-<id>`; described here by shape, as notifications sit below retention.
 */
export type RetentionWarningEvent = { type: "RetentionWarningGiven"; data: { userId: number; days: number; taskCount: number } };

export function retentionWarning(event: RetentionWarningEvent): NotificationContent {
  const { taskCount, days } = event.data;
  const tasks = taskCount === 1 ? "1 task" : `${taskCount} tasks`;
  return {
    kind: "retention_warning",
    taskId: null,
    title: "Tasks to be deleted",
    message:
      `${tasks} will be deleted tomorrow under your retention of ${days === 1 ? "1 day" : `${days} days`}. ` +
      "Download what you want to keep, or change the retention on your account page.",
  };
}

/** 0 s, 45 s, 3 min, 2 h 5 min: minutes are enough once there are a few of them. */
export function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours} h` : `${hours} h ${minutes % 60} min`;
}
