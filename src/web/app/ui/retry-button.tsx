import { useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import type { TaskState } from "../task-status/task-state.ts";

export type Retried = { status: TaskState; attempts: number };

/**
 * Retries a failed task (`PATCH /api/tasks/{id}/retry`): at most 3 times, which the API enforces and says. One button
 * for the task list's rows and the task's own page; `label` names the task where several are on screen.
 */
export function RetryButton({
  taskId,
  label,
  describedBy,
  onRetried,
}: {
  taskId: number;
  label?: string;
  describedBy?: string;
  onRetried: (answer: Retried) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const retry = async () => {
    setBusy(true);
    setProblem(null);
    try {
      onRetried(await call(api.PATCH("/api/tasks/{id}/retry", { params: { path: { id: taskId } } })));
    } catch (error) {
      setProblem(ApiError.of(error).message);
    }
    setBusy(false);
  };
  return (
    <>
      <button type="button" disabled={busy} aria-busy={busy} aria-label={label} aria-describedby={describedBy} onClick={retry}>
        Retry
      </button>
      {problem && (
        <p class="form-error" role="alert">
          Not retried: {problem}
        </p>
      )}
    </>
  );
}
