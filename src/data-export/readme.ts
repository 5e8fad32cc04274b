/** README.txt, the archive's first file: what each file is, and which API answer it equals. */
export function readme(exportedAt: Date): string {
  return `Scribe: a copy of your data
===========================

Made ${exportedAt.toISOString()} by GET /api/user/export.

profile.json        Your account as GET /api/user shows it: name, e-mail, avatar URL, balance, plan, queue.
folders.json        Your folders: [{id, name}].
tasks.json          Every task below, one line each as GET /api/tasks lists them, with "archive_folder",
                    the folder of this archive that holds its files. Newest first.
tasks/<id> <name>/  One folder per task:
  task.json         The task as GET /api/tasks/{id} shows it: name, file, status, duration, cost, folder,
                    dates, summary, mind map and the transcript's segments.
  transcript.json   The transcript as GET /api/tasks/{id}/download/json gives it: segments with their times
                    in milliseconds, speaker and text, and the recognised words with their times and
                    confidence where the engine timed them (not for a transcript you supplied or edited).
  transcript.srt    The transcript as subtitles, as GET /api/tasks/{id}/download/srt gives it.
  summary.txt       The summary (only when the task has one).
  mindmap.md        The mind map, a Markdown outline (only when the task has one).
  media/<file>      The original audio or video: your upload, or the file fetched from the task's link
                    (only while it is stored; a task made from a transcript alone has none).

A task without a transcript yet (still being transcribed, or failed) has task.json and its media only.
Text files are UTF-8. Times are milliseconds of the media unless they say otherwise; dates are ISO 8601.
`;
}
