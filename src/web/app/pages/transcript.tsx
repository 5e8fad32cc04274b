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
import { TranscriptExtras } from "../transcript-extras/index.tsx";

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
  const edits = useTranscriptEdits(task.id, task.segments ?? [], onSaved);
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

/** `/tasks/:id`: a task's transcript, its player and its edits, beside the summary, exports, sharing and history. */
export default function TranscriptPage() {
  const { params } = useRoute();
  const id = Number(params.id);
  const [task, setTask] = useState<Task | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  useTitle(task?.name ?? "Transcript");

  useEffect(() => {
    setTask(null);
    setError(null);
    if (!Number.isSafeInteger(id) || id < 1) {
      setError(new ApiError(404, "There is no such task."));
      return;
    }
    call(api.GET("/api/tasks/{id}", { params: { path: { id } } }))
      .then(setTask)
      .catch((failure) => setError(ApiError.of(failure)));
  }, [id]);
  const onSaved = useCallback((saved: Task) => setTask(saved), []);

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
  return (
    <article class="transcript-page">
      <header class="transcript-header">
        <h1>{task.name}</h1>
        <p class="muted">
          {duration(task.duration)} · {task.status} · {dateTime(task.created_at)}
        </p>
      </header>
      <div class="transcript-layout">
        {task.status === "finished" ? (
          // Keyed by task: another task's transcript starts its own edits and undo history.
          <Transcript key={task.id} task={task} onSaved={onSaved} />
        ) : (
          <div class="transcript-main">
            <p>{task.status === "failed" ? `The transcription failed: ${task.failure_reason ?? "no reason given"}.` : "The transcript is not ready yet."}</p>
          </div>
        )}
        {/* Helper D's area (src/web/app/transcript-extras): summary, mind map, exports, share link, history. */}
        <aside class="transcript-side" aria-label="Summary, exports and history">
          <TranscriptExtras task={task} />
        </aside>
      </div>
    </article>
  );
}
