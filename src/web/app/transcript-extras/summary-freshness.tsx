import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, call, type components } from "../api.ts";
import { fetchTask, versionOf } from "../transcript/task-version.ts";

type Task = components["schemas"]["Task"];

/**
 * How often a task whose summary is out of date is read again: the service makes it again once the edits have
 * settled (SUMMARY_REFRESH_AFTER_EDIT_SECONDS, 30 s unless the operator changed it), and the page shows it when it
 * comes. The status stream ends once a task has finished, so this is the one thing the page still asks about.
 */
const followEveryMs = 4000;

/** The revision an ETag (`"7"`) names; null when the task was not read with one. */
function revisionOf(task: Task): number | null {
  const digits = versionOf(task)?.match(/\d+/)?.[0];
  return digits === undefined ? null : Number(digits);
}

/** Whether `fresh` is the task as it is now rather than an answer overtaken by a newer one (an edit saved meanwhile). */
function isNewer(fresh: Task, shown: Task): boolean {
  const [after, before] = [revisionOf(fresh), revisionOf(shown)];
  return after === null || before === null || after > before;
}

/** Reads the task again every few seconds while its summary is out of date (and not failed), handing on each newer version. */
function useOutdatedSummaryFollowed(task: Task, onChanged: (task: Task) => void): void {
  const shown = useRef(task);
  shown.current = task;
  const waiting = task.summary_outdated && task.summary_failure === null;
  useEffect(() => {
    if (!waiting) return;
    let stopped = false;
    const timer = setInterval(() => {
      fetchTask(task.id)
        .then((fresh) => {
          if (!stopped && isNewer(fresh, shown.current)) onChanged(fresh);
        })
        // Asked again at the next tick; the transcript and its edits do not depend on it.
        .catch(() => {});
    }, followEveryMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [task.id, waiting, onChanged]);
}

/**
 * Says when the summary and mind map are of an earlier transcript than the one shown (after an edit, until the service
 * makes them again) or could not be made, with a button that makes them now (`GET /api/tasks/{id}/refresh-summary`).
 */
export function SummaryFreshness({ task, onChanged }: { task: Task; onChanged: (task: Task) => void }) {
  const [refreshing, setRefreshing] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  useOutdatedSummaryFollowed(task, onChanged);
  if (task.status !== "finished" || (!task.summary_outdated && task.summary_failure === null)) return null;

  const refresh = async () => {
    setRefreshing(true);
    setProblem(null);
    try {
      await call(api.GET("/api/tasks/{id}/refresh-summary", { params: { path: { id: task.id } } }));
    } catch (failure) {
      // The failure is recorded on the task too (summary_failure): read below, it stays shown after this message.
      setProblem(ApiError.of(failure).message);
    }
    try {
      onChanged(await fetchTask(task.id));
    } catch (failure) {
      setProblem((shown) => shown ?? ApiError.of(failure).message);
    } finally {
      setRefreshing(false);
    }
  };

  return (
    <div class="notice summary-freshness">
      {task.summary_failure !== null ? (
        <p role="alert">The summary and mind map could not be made: {task.summary_failure}</p>
      ) : (
        <p>
          <strong>Out of date:</strong> the summary and mind map were made from the transcript before your latest edits.
        </p>
      )}
      {problem !== null && task.summary_failure === null && (
        <p role="alert" class="form-error">
          {problem}
        </p>
      )}
      <p class="actions">
        <button type="button" onClick={refresh} disabled={refreshing} aria-busy={refreshing}>
          {refreshing ? "Refreshing…" : task.summary_failure !== null ? "Try again" : "Refresh summary"}
        </button>
      </p>
    </div>
  );
}
