import type { components } from "../api.ts";
import { RetryButton } from "../ui/retry-button.tsx";
import { dateTime, duration } from "../ui/format.ts";
import { knownDuration } from "../task-status/stage.ts";
import { useLiveStatus } from "./live-status.ts";

export type TaskListItem = components["schemas"]["TaskListItem"];

const statusNames: Record<string, string> = {
  pending: "Pending",
  waiting: "Waiting",
  scribing: "Scribing",
  finished: "Finished",
  failed: "Failed",
  deleted: "Deleted",
};

type RowProps = {
  task: TaskListItem;
  selected: boolean;
  onSelect: (id: number, selected: boolean) => void;
  /** A task in progress finished, failed or was deleted, or a retry was accepted: counts elsewhere change. */
  onChanged: () => void;
};

/** One task: a checkbox to select it, its name linking to its transcript, what it is, and its live status. */
export function TaskRow({ task, selected, onSelect, onChanged }: RowProps) {
  const { live, restart } = useLiveStatus(task, onChanged);
  const status = live === "deleted" ? "deleted" : live.status;
  const checkbox = `select-task-${task.id}`;
  return (
    <li class="task-row" data-status={status}>
      <input id={checkbox} type="checkbox" checked={selected} onChange={(event) => onSelect(task.id, event.currentTarget.checked)} />
      <label for={checkbox} class="visually-hidden">
        Select {task.name}
      </label>
      <div class="task-main">
        <a href={`/tasks/${task.id}`} class="task-name">
          {task.name}
        </a>
        <p class="task-meta">
          <span>{task.folder ?? "Uncategorized"}</span>
          {/* Unknown until the media is probed: nothing rather than "0 s". */}
          {knownDuration(task.duration) !== null && <span>{duration(task.duration)}</span>}
          <time dateTime={task.created_at}>{dateTime(task.created_at)}</time>
        </p>
        {live !== "deleted" && live.status === "failed" && (
          <div class="task-failure">
            <p class="failure-reason">{live.failure_reason ?? "This task failed."}</p>
            <RetryButton
              taskId={task.id}
              label={`Retry ${task.name}`}
              onRetried={(answer) => {
                restart({ status: answer.status, attempts: answer.attempts, failure_reason: null });
                onChanged();
              }}
            />
          </div>
        )}
      </div>
      <span class={`status status-${status}`}>{statusNames[status] ?? status}</span>
    </li>
  );
}
