/**
 * A task event's type in words for the timeline. Types the app does not know yet (a newer service) are split
 * at their capitals ("TaskArchived" → "Task archived"), so the timeline never shows a blank.
 */
const words: Record<string, string> = {
  TaskCreated: "Created",
  MediaFetchStarted: "Started fetching the media",
  MediaFetched: "Fetched the media",
  TranscriptionStarted: "Started transcribing",
  TaskFinished: "Finished transcribing",
  TaskFailed: "Failed",
  TaskRetried: "Retried",
  TaskRequeued: "Started again after its work was lost",
  TranscriptEdited: "Edited the transcript",
  TaskRenamed: "Renamed",
  TaskMoved: "Moved to another folder",
  TaskRated: "Rated",
  TaskShared: "Shared",
  TaskUnshared: "Stopped sharing",
  TaskDetailsCorrected: "Corrected the details",
  SummaryRefreshed: "Summarized",
  SummaryFailed: "Summary failed",
  ExportRequested: "Export requested",
  ExportGenerated: "Export made",
  TaskDeleted: "Deleted",
};

export function eventInWords(type: string): string {
  const known = words[type];
  if (known) return known;
  const spaced = type.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * Who acted, in the reader's words: "you" for the account's own actions, "an operator" for the service's operator
 * (`bun run admin`, whose events name the system `operator`), and "Scribe" for every part of the service that acts
 * on its own (its workers and jobs, a payment provider's webhook): which worker did it is for the event log
 * (`bun run events`), never for the person. Another account (none acts on a task today) is not named either.
 */
export function actorInWords(event: { user_id: number | null; system: string | null }, me: number | null): string {
  if (event.user_id !== null) return event.user_id === me ? "you" : "another account";
  return event.system === "operator" ? "an operator" : "Scribe";
}

/** The few facts of an event worth a line in the timeline; the rest is for analysts (`bun run events`). */
export function eventDetail(event: { type: string; data: Record<string, unknown> }): string | null {
  const { data } = event;
  const text = (key: string) => (typeof data[key] === "string" || typeof data[key] === "number" ? String(data[key]) : null);
  switch (event.type) {
    case "TaskCreated":
      // A live session kept as the task (its `origin`); a task made from a file or link needs no word.
      return data.origin === "live" ? "from a live transcription" : null;
    case "TaskRenamed":
      return text("name") && `to “${text("name")}”`;
    case "TaskFailed":
      return text("reason");
    case "ExportRequested":
    case "ExportGenerated":
      return text("format")?.toUpperCase() ?? null;
    case "TaskFinished":
    case "TranscriptEdited":
      return text("segments");
    default:
      return null;
  }
}
