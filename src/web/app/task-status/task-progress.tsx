import { RetryButton, type Retried } from "../ui/retry-button.tsx";
import { progressInWords, stageInWords, type Followed } from "./stage.ts";

export type { Retried };

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
        <RetryButton describedBy="failure-reason" taskId={task.id} onRetried={onRetried} />
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
