import type { Recorded } from "../core/event.ts";
import type { ProjectedDocument } from "../core/projection.ts";
import type { TaskEvent } from "./events.ts";
import { evolveSummaryFields, type SummaryFields } from "./summary-freshness.ts";
import { hasTranscript, type TranscriptRef, type TranscriptSource } from "./transcripts.ts";

/**
 * The transcript, summary and mind map of a task: only the detail view reads them. The segments are a
 * blob (`transcript`, read through TranscriptStore), or inline (`segments`) for events written before.
 */
export type TranscriptFields = {
  userId: number;
  transcript: TranscriptRef | null;
  segments: unknown[] | null;
  summary: string | null;
  mindmap: string | null;
} & Partial<SummaryFields>;
export type TranscriptDocument = ProjectedDocument & TranscriptFields;

/** An event's transcript as the read model keeps it: one of the two forms, the other null. */
const transcriptOf = (data: TranscriptSource) => ({
  transcript: data.transcript ?? null,
  segments: data.transcript ? null : ((data.segments ?? null) as unknown[] | null),
});

export function evolveTranscript(doc: TranscriptFields | null, event: Recorded<TaskEvent>): TranscriptFields | null {
  const next = evolveTranscriptContent(doc, event);
  // Which transcript the summary is of (summary-freshness.ts); documents written before these fields start from none.
  return next && { ...next, ...evolveSummaryFields(doc, event) };
}

function evolveTranscriptContent(doc: TranscriptFields | null, event: Recorded<TaskEvent>): TranscriptFields | null {
  switch (event.type) {
    case "TaskCreated":
      return { userId: event.data.userId, ...transcriptOf(event.data), summary: null, mindmap: null };
    case "TranscriptEdited":
      return doc && { ...doc, ...transcriptOf(event.data) };
    case "TaskFinished": {
      const { summary, mindmap } = event.data;
      return doc && { ...doc, ...(hasTranscript(event.data) && transcriptOf(event.data)), summary: summary ?? doc.summary, mindmap: mindmap ?? doc.mindmap };
    }
    case "SummaryRefreshed":
      return doc && { ...doc, summary: event.data.summary, mindmap: event.data.mindmap };
    case "TaskDeleted":
      return null;
    default:
      return doc;
  }
}
