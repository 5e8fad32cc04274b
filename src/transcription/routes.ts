import { textResponse } from "../http/openapi/responses.ts";
import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "../tasks/service.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { taskParams } from "../tasks/schemas.ts";
import type { Summaries } from "./summaries.ts";
import { taskStatusStream, type StatusStreamOptions } from "./status-stream.ts";
import type { BlobStore } from "../blobs/port.ts";
import { readProgress } from "./progress.ts";

/** Spec 4.2's refresh-summary, and live status as Server-Sent Events. */
export function transcriptionRoutes({
  tasks,
  db,
  blobs,
  summaries,
  authenticated,
  stream,
}: {
  tasks: Tasks;
  db: DocumentStore;
  /** Where the pipeline reports a scribing task's progress (progress.ts). */
  blobs: BlobStore;
  summaries: Summaries;
  authenticated: Authenticated;
  stream?: StatusStreamOptions;
}) {
  const detail = (summary: string, description: string) => ({ tags: ["Tasks"], security: [{ bearer: [] }], summary, description });
  return new Elysia({ name: "transcription-routes" })
    .use(authenticated)
    .get("/api/tasks/:id/refresh-summary", ({ params, caller, metadata }) => summaries.refresh(caller.userId, params.id, metadata), {
      params: taskParams,
      response: { 200: t.Object({ summary: t.String(), mindmap: t.String({ description: "Markdown outline: `# title`, `## topic`, `- key point`" }) }) },
      detail: detail(
        "Regenerate the summary and mind map",
        "Made again from the current transcript, edits included, by the embedded extractive summariser or the configured chat endpoint, which " +
          "clears the task's `summary_outdated` (the service also does it by itself once edits settle). 422 when the task has no transcript yet; " +
          "502 when the summariser fails (the failure is recorded, shown as `summary_failure`, and the task keeps its previous summary).",
      ),
    })
    .get(
      "/api/tasks/:id/events",
      async ({ params, caller, request, server }) => {
        await tasks.owned(caller.userId, params.id);
        server?.timeout(request, 0); // a stream that waits for a transcription must outlive the idle timeout
        const body = taskStatusStream(() => db.collection<TaskDocument>("tasks").findOne({ _id: String(params.id) }), {
          ...stream,
          readProgress: (attempt) => readProgress(blobs, params.id, attempt),
        });
        return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no" } });
      },
      {
        params: taskParams,
        detail: {
          responses: { 200: textResponse("Server-Sent Events: `status`, and `deleted` if the task is deleted.", "text/event-stream") },
          ...detail(
            "Live status as Server-Sent Events",
            [
              "`text/event-stream`: `event: status` with `{status, attempts, failure_reason, stage, progress}` at once and on every change, " +
                "until the task has finished or failed (then the stream ends); `event: deleted` if it is deleted. A `: heartbeat` comment comes " +
                "every 15 s.",
              "",
              "`stage` says where a task in progress is, null once it has ended: `queued` (pending: waiting for a free transcription slot; or " +
                "scribing with every chunk waiting for a free recogniser), `fetching` (waiting: the media is fetched from its link), `preparing` " +
                "(the media is read, decoded and cut into chunks), `recognising`, `summarising` (segments, speakers, summary and mind map, " +
                "saving).",
              "",
              "`progress`, while `queued` or `recognising` once the media is cut, else null: `{percent, chunks_done, chunks}`, the share of the " +
                "media recognised (a whole number, 0 to 100) and the chunks done of all. It is read from what the recognising worker reports, at " +
                "most once a second.",
            ].join("\n"),
          ),
        },
      },
    );
}
