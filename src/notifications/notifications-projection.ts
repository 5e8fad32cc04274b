/**
 * The `notifications` read model (spec 2.5): one document per notification, keyed by the id of the
 * event that caused it and position guarded, so a redelivered event finds its notification already there.
 *
 * Sources:
 * - `user-<id>`: PlanChanged ("Plan changed"); SecondsCharged when it takes the balance below 10 %
 *   of the period's total or below 60 s ("Balance low"); NotificationsRead marks them read.
 * - `webhooks-<user id>`: WebhookEndpointDisabled {userId, url, reason} ("Webhook disabled").
 * - `user-<id>`: RetentionWarningGiven {userId, days, taskCount} ("Tasks to be deleted"): the retention job's notice a day
 *   before it deletes a batch of tasks (src/retention); one event, one notification.
 * - `deadletter-<id>`: MessageDeadLettered about a task, the first time ("Task problem"): a worker set aside a
 *   message about the task for the operator. It carries the task's owner and name.
 * - `task-<id>` (later issues): TaskFinished {taskId, name}, TaskFailed {taskId, name, reason},
 *   ExportReady {taskId, format}, ExportGenerated {taskId, format} when `requested`. Their `data` MUST carry `userId` (the task's owner): this
 *   projection sees one event at a time and never looks the task up. Each keeps its `taskId`, which the app links to.
 * - `user-<id>`: AccountErased deletes the account's notifications (src/erasure).
 * - `task-<id>`: TaskDeleted marks the task's notifications `taskDeleted`, and the reads leave them out: a link to
 *   a deleted task leads nowhere. Marked, not removed, so that a redelivered TaskFinished finds its notification
 *   there and does not make it again.
 *
 * "Balance low" needs the balance before and after a charge. The `users` read model is fed by its own
 * subscription and may lag behind this one, so this projection folds the ledger events itself into
 * `notification_balances` (one small document per user, guarded by log position).
 */
import type { Recorded, RecordedEvent } from "../core/event.ts";
import type { Document, DocumentStore } from "../readmodels/port.ts";
import { userIdOf, type UserEvent } from "../accounts/events.ts";
import { emptyLedger, evolveLedger, type BalanceLedger } from "../accounts/balance.ts";
import {
  balanceLowAfterCharge,
  planChanged,
  taskNotification,
  taskNotificationEventTypes,
  type NotificationContent,
  type MessageDeadLetteredEvent,
  type NotificationKind,
  type RetentionWarningEvent,
  retentionWarning,
  type TaskNotificationEvent,
  taskProblem,
  type WebhookDisabledEvent,
  webhookDisabled,
} from "./decisions.ts";
import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";

export type NotificationDocument = ProjectedDocument & {
  userId: number;
  kind: NotificationKind;
  title: string;
  message: string;
  /** The task it is about; null for the account's own (plan, balance, webhooks). */
  taskId: number | null;
  /** Its task was deleted since: kept (see above), never shown. */
  taskDeleted: boolean;
  read_at: string | null;
  created_at: string;
};

type BalanceDocument = ProjectedDocument & { ledger: BalanceLedger };

const ledgerEventTypes = ["AllowanceGranted", "SecondsToppedUp", "SecondsCharged"] as const;
type LedgerEvent = Extract<UserEvent, { type: (typeof ledgerEventTypes)[number] }>;

type NotificationFields = Omit<NotificationDocument, "_id" | "_position">;

/** The tasks capability's fact that a task was deleted, described by shape: notifications sit below tasks. */
type TaskDeletedEvent = { type: "TaskDeleted"; data: { userId: number; taskId: number } };

/** Every event the projection reads, by the shape it relies on. */
type NotifyingEvent =
  | Extract<UserEvent, { type: "PlanChanged" | "NotificationsRead" | "AccountErased" }>
  | LedgerEvent
  | TaskNotificationEvent
  | TaskDeletedEvent
  | WebhookDisabledEvent
  | MessageDeadLetteredEvent
  | RetentionWarningEvent;

/** Adds the notification this event makes unless it made it before; never touches one that exists (it may be read). */
function notify(db: DocumentStore, event: RecordedEvent, userId: number, content: NotificationContent): Promise<void> {
  return positionGuarded<NotificationFields>({
    collection: "notifications",
    documentId: () => event.id,
    evolve: (current) => current ?? { userId, ...content, taskDeleted: false, read_at: null, created_at: event.time },
  })(event, db);
}

const applyToBalance = positionGuarded<{ ledger: BalanceLedger }, LedgerEvent>({
  collection: "notification_balances",
  documentId: (recorded) => String(userIdOf(recorded)),
  evolve: (current, recorded) => ({ ledger: evolveLedger(current?.ledger ?? emptyLedger, recorded) }),
});

/**
 * Folds a ledger event into the user's balance. The notification is written before the balance, so
 * a crash in between replays the event against the same "before" and writes the same notification.
 */
async function applyLedgerEvent(db: DocumentStore, recorded: Recorded<LedgerEvent>, userId: number): Promise<void> {
  if (recorded.type === "SecondsCharged") {
    const current = await db.collection<BalanceDocument>("notification_balances").findOne({ _id: String(userId) });
    if (current && current._position >= recorded.position) return;
    const before = current?.ledger ?? emptyLedger;
    const low = balanceLowAfterCharge(before, evolveLedger(before, recorded));
    if (low) await notify(db, recorded, userId, low);
  }
  await applyToBalance(recorded, db);
}

function isTaskNotificationEvent(event: RecordedEvent): event is Recorded<TaskNotificationEvent> {
  const data = event.data as Document | null;
  if (event.type === "ExportGenerated" && data?.requested !== true) return false; // made ahead of time: nobody is waiting
  return (taskNotificationEventTypes as readonly string[]).includes(event.type) && typeof data?.userId === "number";
}

/** A dead letter about a task, the first time it was set aside: its owner is told once. */
function isTaskDeadLettered(event: RecordedEvent): event is Recorded<MessageDeadLetteredEvent> {
  const data = event.data as Document | null;
  const task = data?.task as Document | null | undefined;
  return event.type === "MessageDeadLettered" && data?.occurrence === 1 && typeof task?.userId === "number" && typeof task.taskId === "number";
}

function isTaskDeleted(event: RecordedEvent): event is Recorded<TaskDeletedEvent> {
  const data = event.data as Document | null;
  return event.type === "TaskDeleted" && typeof data?.userId === "number" && typeof data.taskId === "number";
}

export const notificationsProjection: Projection<NotifyingEvent> = {
  name: "notifications",
  // 2: notifications keep their task (`taskId`), and a deleted task's are marked `taskDeleted`.
  version: 2,
  collections: ["notifications", "notification_balances"],
  eventTypes: [
    "PlanChanged",
    ...ledgerEventTypes,
    "NotificationsRead",
    ...taskNotificationEventTypes,
    "TaskDeleted",
    "WebhookEndpointDisabled",
    "MessageDeadLettered",
    "RetentionWarningGiven",
    "AccountErased",
  ],
  async setup(db) {
    await db.collection("notifications").createIndex({ userId: 1, taskDeleted: 1, _position: -1 });
    await db.collection("notifications").createIndex({ userId: 1, read_at: 1 });
  },
  async apply(recorded, db) {
    if (isTaskNotificationEvent(recorded)) {
      await notify(db, recorded, recorded.data.userId, taskNotification(recorded));
      return;
    }
    if (isTaskDeleted(recorded)) {
      const { userId, taskId } = recorded.data;
      // Its message names the task: erased with it (the notification stays, marked, for the reason below).
      await db.collection<NotificationDocument>("notifications").updateMany({ userId, taskId }, { $set: { taskDeleted: true, message: "[erased]" } });
      return;
    }
    if (isTaskDeadLettered(recorded)) {
      const task = recorded.data.task!;
      await notify(db, recorded, task.userId, taskProblem(task));
      return;
    }
    if (recorded.type === "RetentionWarningGiven") {
      await notify(db, recorded, recorded.data.userId, retentionWarning(recorded));
      return;
    }
    if (recorded.type === "WebhookEndpointDisabled") {
      await notify(db, recorded, recorded.data.userId, webhookDisabled(recorded));
      return;
    }
    const userId = userIdOf(recorded);
    if (userId === null) return;
    switch (recorded.type) {
      case "PlanChanged":
        await notify(db, recorded, userId, planChanged(recorded.data.plan, recorded.data.interval));
        return;
      case "AllowanceGranted":
      case "SecondsToppedUp":
      case "SecondsCharged":
        await applyLedgerEvent(db, recorded, userId);
        return;
      case "NotificationsRead":
        // What the user had seen is what came before this event in the log: compared by position, not
        // by clock, so a replay cannot mark a notification made in the same millisecond but later.
        await db
          .collection<NotificationDocument>("notifications")
          .updateMany({ userId, read_at: null, _position: { $lt: recorded.position } }, { $set: { read_at: recorded.data.upTo } });
        return;
      case "AccountErased":
        // Its notifications are deleted with it (src/erasure); a redelivery finds nothing left to delete.
        await db.collection<NotificationDocument>("notifications").deleteMany({ userId });
        await db.collection<BalanceDocument>("notification_balances").deleteMany({ _id: String(userId) });
        return;
    }
  },
};
