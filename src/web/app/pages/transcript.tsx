import { useRoute } from "preact-iso";
import type { ApiError } from "../api.ts";
import { duration, dateTime } from "../ui/format.ts";
import { useTitle } from "../ui/navigation.tsx";
import { FindReplace } from "../transcript/find-replace.tsx";
import { useMediaUrl } from "../transcript/media-url.ts";
import { usePlayback } from "../transcript/playback.ts";
import { Player } from "../transcript/player.tsx";
import { SegmentList } from "../transcript/segment-list.tsx";
import { isVideoFile } from "../transcript/shortcuts.ts";
import { Speakers } from "../transcript/speakers.tsx";
import { UndoButton } from "../transcript/undo-button.tsx";
import { useShownTask, type ShownTask } from "../transcript/use-shown-task.ts";
import type { Task } from "../transcript/edit-types.ts";
import { useTranscriptEdits } from "../transcript/use-transcript-edits.ts";
import { EditConflictNotice } from "../transcript/edit-conflict.tsx";
import { TranscriptExtras } from "../transcript-extras/index.tsx";
import { knownDuration, stageInWords, type Followed } from "../task-status/stage.ts";
import { TaskProgress } from "../task-status/task-progress.tsx";
import { TaskHeading } from "../tasks/task-heading.tsx";
import { TaskRecognition } from "../tasks/task-recognition.tsx";

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
          onSeek={media === "none" ? undefined : (_segment, ms) => playback.seek(ms)}
          onPlaySegment={media === "none" ? undefined : playback.playSegment}
          editing={edits.editing}
        />
      )}
    </div>
  );
}

const statusNames: Record<string, string> = { pending: "Pending", waiting: "Waiting", scribing: "Scribing", finished: "Finished", failed: "Failed" };

/** The page for a task that cannot be shown: none of the user's, or not read. */
function TaskUnreadable({ error }: { error: ApiError }) {
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

/**
 * The page's one live region: where the task is while it is followed, and how it ended (the transcript it then
 * draws replaces the part that said where it was). Empty for a task that had ended when the page was opened.
 */
function stageSaid(task: Task, live: Followed | null, deleted: boolean): string {
  if (deleted) return "This task was deleted.";
  return live || task.status !== "finished" ? stageInWords(live?.status ?? task.status, live?.stage ?? null).headline : "";
}

/** A task not finished: where it is (or why it failed, with Retry), and a way to read it again should that fail once it ended. */
function TaskUnfinished({ task, live, shown }: { task: Task; live: Followed | null; shown: ShownTask }) {
  return (
    <div class="transcript-main">
      <TaskProgress task={task} followed={live} onRetried={shown.onRetried} />
      {shown.reloadProblem && (
        <p class="form-error" role="alert">
          The task has ended, but could not be read again: {shown.reloadProblem}{" "}
          <button type="button" onClick={shown.reload}>
            Load it again
          </button>
        </p>
      )}
    </div>
  );
}

/**
 * `/tasks/:id`: a task's transcript, its player and its edits, beside the summary, exports, sharing and history. A
 * task not yet finished is followed on its status stream (task-status/): the page says where it is, and draws the
 * transcript, the player and the exports the moment it has finished; a failed one shows its reason and Retry.
 */
export default function TranscriptPage() {
  const { params } = useRoute();
  const shown = useShownTask(Number(params.id));
  const { task, deleted, onSaved } = shown;
  useTitle(task?.name ?? "Transcript");

  if (shown.error) return <TaskUnreadable error={shown.error} />;
  if (!task) return <p aria-busy="true">Loading…</p>;
  const live = shown.followed === "deleted" ? null : shown.followed;
  const seconds = knownDuration(task.duration);
  return (
    <article class="transcript-page">
      <header class="transcript-header">
        <TaskHeading task={task} onRenamed={onSaved} renamable={!deleted} />
        <p class="muted">
          {seconds !== null && `${duration(seconds)} · `}
          {statusNames[task.status] ?? task.status} · {dateTime(task.created_at)}
        </p>
        <TaskRecognition task={task} />
        <p class="task-stage" role="status">
          {stageSaid(task, live, deleted)}
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
          <TaskUnfinished task={task} live={live} shown={shown} />
        )}
        {/* Beside the transcript (transcript-extras/): summary, mind map, exports, share link, history. */}
        {!deleted && (
          <aside class="transcript-side" aria-label="Summary, exports and history">
            <TranscriptExtras task={task} onChanged={onSaved} />
          </aside>
        )}
      </div>
    </article>
  );
}
