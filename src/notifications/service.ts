import { byUser } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { StampedCache } from "../readmodels/stamped-cache.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { NotificationDocument } from "./notifications-projection.ts";
import { AccountCommands } from "../accounts/commands.ts";

/** Spec 2.5, and the task it is about (`task_id`), which the app links to. */
export type NotificationView = { id: string; title: string; message: string; task_id: number | null; read_at: string | null; created_at: string };

/** Spec 8: GET /api/notifications returns this many, newest first. */
export const recentLimit = 10;

/**
 * Notification use cases. Reading is a query on the `notifications` read model; marking read is a
 * command on the account's stream (NotificationsRead), which the projection then applies.
 */
export class Notifications {
  // Polled by every open page of the app: kept per user until any notification is written.
  private readonly recentByUser: StampedCache<readonly NotificationView[]>;
  private readonly accounts: AccountCommands;

  constructor(
    store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.recentByUser = new StampedCache(db, ["notifications"], 10_000);
    this.accounts = new AccountCommands(store);
  }

  async recent(userId: number): Promise<readonly NotificationView[]> {
    return this.recentByUser.get(String(userId), async () => {
      // Log position orders them exactly as they happened, even within one millisecond. A deleted task's are left
      // out: what they would link to is gone.
      const found = await this.db
        .collection<NotificationDocument>("notifications")
        .find({ userId, taskDeleted: false }, { sort: { _position: -1 }, limit: recentLimit });
      return found.map((n) => ({ id: n._id, title: n.title, message: n.message, task_id: n.taskId, read_at: n.read_at, created_at: n.created_at }));
    });
  }

  /** Waits for the projection, so a GET right after the answer already shows them read. */
  async markAllRead(userId: number, correlationId: string): Promise<void> {
    const result = await this.accounts.run(
      userId,
      { type: "MarkNotificationsRead", now: this.now().toISOString() },
      {
        metadata: byUser(userId, correlationId),
      },
    );
    if (result.position !== null) await this.waitFor(result.position, ["notifications"]);
  }
}
