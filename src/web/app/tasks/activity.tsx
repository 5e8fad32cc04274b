import { useState } from "preact/hooks";
import { ApiError, api, call, type components } from "../api.ts";
import { dateTime } from "../ui/format.ts";

type Queue = components["schemas"]["User"]["queue"];
type Notification = components["schemas"]["Notification"];

/** The account's queue (`GET /api/user`'s `queue`): how many tasks wait, run and failed. */
export function QueueCounts({ queue }: { queue: Queue | null }) {
  return (
    <section aria-labelledby="queue-heading" class="queue">
      <h2 id="queue-heading">Queue</h2>
      {queue && (
        <dl class="facts">
          <dt>Waiting</dt>
          <dd>{queue.pending_count}</dd>
          <dt>Running</dt>
          <dd>{queue.running_count}</dd>
          <dt>Failed</dt>
          <dd>{queue.failed_count}</dd>
        </dl>
      )}
    </section>
  );
}

/**
 * The 10 latest notifications (`GET /api/notifications`) behind a disclosure that says how many are unread, each
 * one about a task linking to it; "Mark all as read" is the API's one way to read them
 * (`POST /api/notifications/mark-all-as-read`).
 */
export function Notifications({ notifications, onRead }: { notifications: Notification[] | null; onRead: () => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const unread = notifications?.filter((n) => n.read_at === null).length ?? 0;
  const markRead = async () => {
    try {
      await call(api.POST("/api/notifications/mark-all-as-read"));
      setProblem(null);
      onRead();
    } catch (error) {
      setProblem(ApiError.of(error).message);
    }
  };
  return (
    <section aria-labelledby="notifications-heading" class="notifications">
      <h2 id="notifications-heading">Notifications</h2>
      <details>
        <summary>
          {unread === 0 ? "No unread notifications" : `${unread} unread`}
          {notifications && notifications.length > 0 && ` · show the latest ${notifications.length}`}
        </summary>
        {notifications && notifications.length === 0 && <p>Nothing yet.</p>}
        {notifications && notifications.length > 0 && (
          <ul aria-label="Latest notifications">
            {notifications.map((n) => (
              <li key={n.id} class={n.read_at === null ? "unread" : undefined}>
                <strong>{n.title}</strong>
                {n.read_at === null && <span class="visually-hidden"> (unread)</span>}
                {/* About a task: its words lead to it. A deleted task's notifications are no longer listed. */}
                <p>{n.task_id === null ? n.message : <a href={`/tasks/${n.task_id}`}>{n.message}</a>}</p>
                <time dateTime={n.created_at}>{dateTime(n.created_at)}</time>
              </li>
            ))}
          </ul>
        )}
      </details>
      {problem && (
        <p class="form-error" role="alert">
          {problem}
        </p>
      )}
      {unread > 0 && (
        <button type="button" onClick={markRead}>
          Mark all as read
        </button>
      )}
    </section>
  );
}
