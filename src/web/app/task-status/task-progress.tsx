import { useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { progressInWords, stageInWords, type Followed } from "./stage.ts";

export type Retried = { status: string; attempts: number };

/** Retries a failed task (`PATCH /api/tasks/{id}/retry`): at most 3 times, which the API enforces and says. */
function RetryButton({ taskId, onRetried }: { taskId: number; onRetried: (answer: Retried) => void }) {
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
      <button type="button" disabled={busy} aria-busy={busy} aria-describedby="failure-reason" onClick={retry}>
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

/**
 * Where a task that is not finished stands, in the transcript's place: its stage and what it means, recognition's
 * progress as a bar and in words, or its failure with the reason and Retry. The stage's sentence itself is the page's
 * live region (the page keeps it, so that "ready" is announced too); the percentage stays out of it, so a screen
 * reader is not read a number every second, and is there on the bar for whoever looks.
 */
export function TaskProgress({
  task,
  followed,
  onRetried,
}: {
  task: { id: number; status: string; failure_reason?: string | null };
  followed: Followed | null;
  onRetried: (answer: Retried) => void;
}) {
  if (task.status === "failed") {
    return (
      <section class="task-progress" aria-labelledby="task-progress-title">
        <h2 id="task-progress-title">Transcript</h2>
        <p id="failure-reason" class="failure-reason">
          {task.failure_reason ?? followed?.failure_reason ?? "No reason was given."}
        </p>
        <RetryButton taskId={task.id} onRetried={onRetried} />
      </section>
    );
  }
  if (followed?.status === "finished") {
    return (
      <section class="task-progress" aria-labelledby="task-progress-title" aria-busy="true">
        <h2 id="task-progress-title">Transcript</h2>
        <p class="muted">Loading the transcript…</p>
      </section>
    );
  }
  const { detail } = stageInWords(task.status, followed?.stage ?? null);
  const progress = followed?.progress ?? null;
  return (
    <section class="task-progress" aria-labelledby="task-progress-title">
      <h2 id="task-progress-title">Transcript</h2>
      {detail && <p>{detail}</p>}
      {progress && (
        <div class="task-progress-bar">
          <progress id="recognition-progress" max={100} value={progress.percent} aria-label="Speech recognised" />
          <p class="muted">{progressInWords(progress)}</p>
        </div>
      )}
      <p class="muted">The transcript appears here as soon as it is ready, with its player and exports. You can leave this page meanwhile.</p>
    </section>
  );
}
