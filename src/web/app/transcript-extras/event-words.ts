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

/** Who acted, from where the reader stands: "You", another user by id, or the part of Scribe that did it. */
export function actorInWords(event: { user_id: number | null; system: string | null }, me: number | null): string {
  if (event.user_id !== null) return event.user_id === me ? "You" : `User ${event.user_id}`;
  return event.system ? `Scribe (${event.system})` : "Scribe";
}
