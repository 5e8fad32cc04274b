import { useCallback, useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import type { Followed } from "../task-status/stage.ts";
import type { Retried } from "../task-status/task-progress.tsx";
import { useFollowedTask } from "../task-status/use-followed-task.ts";
import { inProgress } from "../tasks/live-status.ts";
import { fetchTask } from "./task-version.ts";
import type { Task } from "./edit-types.ts";

export type ShownTask = {
  /** The task as last read or saved; null while it is read. */
  task: Task | null;
  /** Why it could not be read (404 for an id that is none of the user's tasks). */
  error: ApiError | null;
  /** The status stream said the task was deleted. */
  deleted: boolean;
  /** What the task's status stream last said (useFollowedTask); null before its first event. */
  followed: Followed | "deleted" | null;
  /** Why the task could not be read again after the stream said it ended (the transcript is then one click away). */
  reloadProblem: string | null;
  /** Reads the task again. */
  reload: () => void;
  /** The task an edit or a rename saved. */
  onSaved: (saved: Task) => void;
  onRetried: (answer: Retried) => void;
};

/**
 * The task `/tasks/:id` shows: read when the id changes, followed on its status stream while it is not finished,
 * and read again once it has ended (its transcript, summary, duration and history come with it).
 */
export function useShownTask(id: number): ShownTask {
  const [task, setTask] = useState<Task | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [reloadProblem, setReloadProblem] = useState<string | null>(null);

  useEffect(() => {
    setTask(null);
    setError(null);
    setDeleted(false);
    setReloadProblem(null);
    if (!Number.isSafeInteger(id) || id < 1) {
      setError(new ApiError(404, "There is no such task."));
      return;
    }
    fetchTask(id)
      .then(setTask)
      .catch((failure) => setError(ApiError.of(failure)));
  }, [id]);
  const onSaved = useCallback((saved: Task) => setTask(saved), []);

  const reload = useCallback(() => {
    setReloadProblem(null);
    fetchTask(id)
      .then((fresh) => setTask((shown) => (shown?.id === fresh.id ? fresh : shown)))
      .catch((failure) => setReloadProblem(ApiError.of(failure).message));
  }, [id]);
  const followed = useFollowedTask(task, (next) => {
    if (next === "deleted") return setDeleted(true);
    // Finished: shown once read again (with its transcript); until then the page says it is loading.
    if (next.status !== "finished") {
      setTask((shown) => shown && { ...shown, status: next.status, attempts: next.attempts, failure_reason: next.failure_reason });
    }
    if (!inProgress(next.status)) reload();
  });
  const onRetried = useCallback((answer: Retried) => {
    setTask((shown) => shown && { ...shown, status: answer.status, attempts: answer.attempts, failure_reason: null });
  }, []);
  return { task, error, deleted, followed, reloadProblem, reload, onSaved, onRetried };
}
