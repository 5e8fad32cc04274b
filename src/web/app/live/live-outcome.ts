/**
 * The end of a live session as the recording needs it, apart from the browser-only session (live-transcription.ts),
 * so that what follows from it (record/after-stop.ts) is tested without a browser.
 */

/**
 * What became of the audio the session was sent: a task (the server named it in `session.closed`: it is the
 * recording's transcription); nothing (none was sent, or the server said it kept none: the recording is uploaded);
 * or not known (the session was cut off, or did not answer in time, and may have kept or still keep it as a task:
 * the person decides whether to upload the recording).
 */
export type LiveOutcome = { kind: "task"; taskId: number } | { kind: "nothing" } | { kind: "unknown"; why: "timeout" | "dropped" };

/** How long Stop waits for the session to become a task: its last turn's final pass, the audio stored, the task made. */
export const finishTimeoutMs = 30_000;
