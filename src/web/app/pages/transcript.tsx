import { useCallback, useEffect, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { ApiError, api, call } from "../api.ts";
import { duration, dateTime } from "../ui/format.ts";
import { useTitle } from "../ui/navigation.tsx";
import { FindReplace } from "../transcript/find-replace.tsx";
import { usePlayback } from "../transcript/playback.ts";
import { mediaPath, Player } from "../transcript/player.tsx";
import { SegmentList } from "../transcript/segment-list.tsx";
import { isVideoFile } from "../transcript/shortcuts.ts";
import { Speakers } from "../transcript/speakers.tsx";
import { useTranscriptEdits, type Task } from "../transcript/use-transcript-edits.ts";
import { EditConflictNotice } from "../transcript/edit-conflict.tsx";
import { fetchTask } from "../transcript/task-version.ts";
import { TranscriptExtras } from "../transcript-extras/index.tsx";
import { inProgress } from "../tasks/live-status.ts";
import { knownDuration, stageInWords } from "../task-status/stage.ts";
import { TaskProgress, type Retried } from "../task-status/task-progress.tsx";
import { useFollowedTask } from "../task-status/use-followed-task.ts";
import { TaskHeading } from "../tasks/task-heading.tsx";

/**
 * Where the player's media comes from: a signed URL (`GET /api/tasks/{id}/audio-url`), since a media element
 * sends no token. null while asked for; "none" when the task has no stored media (a remote or video-link task).
 */
function useMediaUrl(taskId: number): string | null | "none" {
  const [url, setUrl] = useState<string | null | "none">(null);
  useEffect(() => {
    setUrl(null);
    call(api.GET("/api/tasks/{id}/audio-url", { params: { path: { id: taskId } } }))
      .then((answer) => setUrl(mediaPath(answer.url)))
      .catch(() => setUrl("none"));
  }, [taskId]);
  return url;
}

/** Undo of the last edits, each undo saved like an edit. */
function UndoButton({ label, undo }: { label: string | null; undo: () => Promise<string | null> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onClick = async () => {
    setBusy(true);
    setError(await undo());
    setBusy(false);
  };
  return (
    <div class="undo">
      <button type="button" onClick={onClick} disabled={busy || label === null} aria-busy={busy}>
        {label === null ? "Undo" : `Undo ${label}`}
      </button>
      {error && (
        <p class="field-error" role="alert">
          Not undone: {error}
        </p>
      )}
    </div>
  );
}

/** The transcript with its player and editing tools, once the task is loaded. */
function Transcript({ task, onSaved }: { task: Task; onSaved: (task: Task) => void }) {
  const edits = useTranscriptEdits(task, onSaved);
  const playback = usePlayback(edits.segments);
  const media = useMediaUrl(task.id);
  return (
    <div class="transcript-main">
      {media === "none" ? (
        <p class="muted">This task's media is not stored with us, so there is nothing to play.</p>
      ) : media === null ? (
        <p class="muted" aria-busy="true">
          Loading the player…
        </p>
      ) : (
        <Player src={media} video={isVideoFile(task.file)} playback={playback} title={task.name} segments={edits.segments} />
      )}
      <details class="transcript-tools">
        <summary>Edit tools: find and replace, speakers</summary>
        <FindReplace segments={edits.segments} apply={edits.apply} />
        <Speakers segments={edits.segments} apply={edits.apply} />
      </details>
      <EditConflictNotice edits={edits} />
      <UndoButton label={edits.undoLabel} undo={edits.undo} />
      <h2 id="transcript-title">Transcript</h2>
      {edits.segments.length === 0 ? (
        <p class="muted">The transcript has no segments.</p>
      ) : (
        <SegmentList
          segments={edits.segments}
          current={playback.current}
          onSeek={media === "none" ? undefined : (segment) => playback.seek(segment.start)}
          onPlaySegment={media === "none" ? undefined : playback.playSegment}
          editing={edits.editing}
        />
      )}
    </div>
  );
}

const statusNames: Record<string, string> = { pending: "Pending", waiting: "Waiting", scribing: "Scribing", finished: "Finished", failed: "Failed" };

/**
 * `/tasks/:id`: a task's transcript, its player and its edits, beside the summary, exports, sharing and history. A
 * task not yet finished is followed on its status stream (task-status/): the page says where it is, and draws the
 * transcript, the player and the exports the moment it has finished; a failed one shows its reason and Retry.
 */
export default function TranscriptPage() {
  const { params } = useRoute();
  const id = Number(params.id);
  const [task, setTask] = useState<Task | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [deleted, setDeleted] = useState(false);
  /** Why the task could not be read again after the stream said it ended (the transcript is then one click away). */
  const [reloadProblem, setReloadProblem] = useState<string | null>(null);
  useTitle(task?.name ?? "Transcript");

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

  /** The task read again once it has ended: its transcript, summary, duration and history come with it. */
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

  if (error) {
    return (
      <section>
        <h1>Transcript</h1>
        <p role="alert" class="form-error">
          {error.status === 404 ? "This task does not exist, or it is not yours." : error.message}
        </p>
        <p>
          <a href="/">Back to your transcriptions</a>
        </p>
      </section>
    );
  }
  if (!task) return <p aria-busy="true">Loading…</p>;
  const live = followed === "deleted" ? null : followed;
  const seconds = knownDuration(task.duration);
  // The page's one live region: where the task is while it is followed, and how it ended (the transcript it then
  // draws replaces the part that said where it was). Empty for a task that had ended when the page was opened.
  const stage = deleted
    ? "This task was deleted."
    : live || task.status !== "finished"
      ? stageInWords(live?.status ?? task.status, live?.stage ?? null).headline
      : "";
  return (
    <article class="transcript-page">
      <header class="transcript-header">
        <TaskHeading task={task} onRenamed={onSaved} renamable={!deleted} />
        <p class="muted">
          {seconds !== null && `${duration(seconds)} · `}
          {statusNames[task.status] ?? task.status} · {dateTime(task.created_at)}
        </p>
        <p class="task-stage" role="status">
          {stage}
        </p>
      </header>
      <div class="transcript-layout">
        {deleted ? (
          <div class="transcript-main">
            <p>
              <a href="/">Back to your transcriptions</a>
            </p>
          </div>
        ) : task.status === "finished" ? (
          // Keyed by task: another task's transcript starts its own edits and undo history.
          <Transcript key={task.id} task={task} onSaved={onSaved} />
        ) : (
          <div class="transcript-main">
            <TaskProgress task={task} followed={live} onRetried={onRetried} />
            {reloadProblem && (
              <p class="form-error" role="alert">
                The task has ended, but could not be read again: {reloadProblem}{" "}
                <button type="button" onClick={reload}>
                  Load it again
                </button>
              </p>
            )}
          </div>
        )}
        {/* Helper D's area (src/web/app/transcript-extras): summary, mind map, exports, share link, history. */}
        {!deleted && (
          <aside class="transcript-side" aria-label="Summary, exports and history">
            <TranscriptExtras task={task} />
          </aside>
        )}
      </div>
    </article>
  );
}
