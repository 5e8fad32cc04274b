import { useEffect, useState } from "preact/hooks";
import { useRoute } from "preact-iso";
import { ApiError } from "../api.ts";
import { ReadOnlyTranscript } from "../share/read-only-transcript.tsx";
import { loadSharedTranscript, type SharedTranscript } from "../share/shared-transcript.ts";
import { MindMap } from "../transcript-extras/mind-map.tsx";
import { Summary } from "../transcript-extras/summary.tsx";
import { dateTime, duration } from "../ui/format.ts";
import { useTitle } from "../ui/navigation.tsx";

type Loaded = { transcript: SharedTranscript } | { problem: ApiError } | null;

/**
 * The public share page at the share link itself (`/share/tasks/{id}`): anyone may open it, signed in or not.
 * It reads the transcript through the public API and shows it read-only, with its summary and mind map. No
 * player: the API serves a task's audio to its owner only.
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

  if (loaded === null) return <p class="muted">Loading the transcript…</p>;
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
    <article class="shared">
      <h1>{transcript.name}</h1>
      <p class="muted">
        Shared transcript · {dateTime(transcript.created_at)} · {duration(transcript.duration)}
      </p>
      <Summary text={transcript.summary} />
      {transcript.mindmap && <MindMap outline={transcript.mindmap} />}
      <section aria-labelledby="transcript">
        <h2 id="transcript">Transcript</h2>
        <ReadOnlyTranscript segments={transcript.segments} />
      </section>
    </article>
  );
}
