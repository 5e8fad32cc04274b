import { useEffect, useMemo, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { ApiError } from "../api.ts";
import { Prerendered } from "../share/prerendered.tsx";
import { loadSharedTranscript, type SharedTranscript } from "../share/shared-transcript.ts";
import { usePlayback } from "../transcript/playback.ts";
import { mediaPath, Player } from "../transcript/player.tsx";
import { SegmentList } from "../transcript/segment-list.tsx";
import type { Segment } from "../transcript/segments.ts";
import { MindMap } from "../transcript-extras/mind-map.tsx";
import { Summary } from "../transcript-extras/summary.tsx";
import { dateTime, duration } from "../ui/format.ts";
import { useTitle } from "../ui/navigation.tsx";

type Loaded = { transcript: SharedTranscript } | { problem: ApiError } | null;

/**
 * The transcript page's player and segment list, read-only: a segment seeks the player there, the one playing is
 * marked, Space and ←/→ drive the player, and nothing can be edited. The media comes from the share JSON's
 * `audio_url`, a signed URL that works while the task stays shared (an `<audio>` element: the share JSON does not
 * say whether the file is a video, and its sound is what the transcript is of).
 */
function SharedTranscriptView({ transcript }: { transcript: SharedTranscript }) {
  // The share JSON's segments have no ids; their places stand in for them (nothing is edited here).
  const segments = useMemo<Segment[]>(() => transcript.segments.map((segment, index) => ({ ...segment, id: index, tokens: null })), [transcript]);
  const playback = usePlayback(segments);
  const media = transcript.audio_url === null ? null : mediaPath(transcript.audio_url);
  return (
    <div class="transcript-main">
      {media === null ? (
        <p class="muted">This transcript's media is not stored with us, so there is nothing to play.</p>
      ) : (
        <Player src={media} video={false} playback={playback} title={transcript.name} segments={segments} />
      )}
      <section aria-labelledby="transcript-title">
        <h2 id="transcript-title">Transcript</h2>
        {segments.length === 0 ? (
          <p class="muted">No transcript yet.</p>
        ) : (
          <SegmentList
            segments={segments}
            current={playback.current}
            onSeek={media === null ? undefined : (segment) => playback.seek(segment.start)}
            onPlaySegment={media === null ? undefined : playback.playSegment}
            readOnly
          />
        )}
      </section>
    </div>
  );
}

/**
 * The public share page at the share link itself (`/share/tasks/{id}`): anyone may open it, signed in or not.
 * It reads the transcript through the public API and shows it like the transcript page, read-only: the player
 * and the segments, with the summary and mind map beside them. Until then, the page the server drew of it stays.
 */
export default function SharePage() {
  const taskId = Number(useRoute().params.id);
  const [loaded, setLoaded] = useState<Loaded>(null);
  useEffect(() => {
    let current = true;
    setLoaded(null);
    loadSharedTranscript(taskId)
      .then((transcript) => current && setLoaded({ transcript }))
      .catch((error: unknown) => current && setLoaded({ problem: ApiError.of(error) }));
    return () => {
      current = false;
    };
  }, [taskId]);
  useTitle(loaded && "transcript" in loaded ? loaded.transcript.name : "Shared transcript");

  if (loaded === null) return <Prerendered taskId={taskId} fallback={<p class="muted">Loading the transcript…</p>} />;
  if ("problem" in loaded) {
    const gone = loaded.problem.status === 404 || loaded.problem.status === 422;
    return (
      <section>
        <h1>{gone ? "This transcript is not shared" : "The transcript could not be loaded"}</h1>
        <p>{gone ? "Its link is wrong, or its owner stopped sharing it." : loaded.problem.message}</p>
      </section>
    );
  }
  const { transcript } = loaded;
  return (
    <article class="transcript-page shared">
      <header class="transcript-header">
        <h1>{transcript.name}</h1>
        <p class="muted">
          Shared transcript · {dateTime(transcript.created_at)} · {duration(transcript.duration)}
        </p>
      </header>
      <div class="transcript-layout">
        {/* Keyed by task: another shared transcript starts its own playback. */}
        <SharedTranscriptView key={transcript.id} transcript={transcript} />
        <aside class="transcript-side" aria-label="Summary and mind map">
          <Summary text={transcript.summary} />
          {transcript.mindmap && <MindMap outline={transcript.mindmap} />}
        </aside>
      </div>
    </article>
  );
}
