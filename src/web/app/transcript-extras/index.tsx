import { useState } from "preact/hooks";
import type { components } from "../api.ts";
import { Exports } from "./exports.tsx";
import { History } from "./history.tsx";
import { MindMap } from "./mind-map.tsx";
import { ShareLink } from "./share-link.tsx";
import { Summary } from "./summary.tsx";
import { SummaryFreshness } from "./summary-freshness.tsx";

type Task = components["schemas"]["Task"];

/**
 * What the transcript page shows beside the transcript itself: the summary and the mind map, the exports, the
 * share link and the task's history. The page passes the task as `GET /api/tasks/{id}` answered it, and again
 * after each change (the history is read again when `updated_at` moves); `onChanged` hears the task read again here
 * (a summary made again after edits).
 */
export function TranscriptExtras({ task, onChanged }: { task: Task; onChanged: (task: Task) => void }) {
  const transcribed = task.status === "finished";
  // Sharing adds to the history without changing the task: the timeline is read again after it too.
  const [shares, setShares] = useState(0);
  return (
    <div class="transcript-extras">
      <SummaryFreshness task={task} onChanged={onChanged} />
      <Summary text={task.summary} />
      {task.mindmap && <MindMap outline={task.mindmap} />}
      {transcribed ? (
        <Exports task={task} />
      ) : (
        <section aria-labelledby="exports">
          <h2 id="exports">Export</h2>
          <p class="muted">Exports can be downloaded once the transcript is ready.</p>
        </section>
      )}
      <ShareLink taskId={task.id} onChange={() => setShares((count) => count + 1)} />
      <History taskId={task.id} version={`${task.updated_at} ${shares} ${task.summary_outdated}`} />
    </div>
  );
}
