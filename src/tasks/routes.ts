import { releaseHeavyWork } from "../http/heavy-work-slots.ts";
import { takePreparedMember } from "../http/prepared-members.ts";
import { storedTranscriptFrom } from "./stored-transcript.ts";
import { Elysia, t, type Static } from "elysia";
import { integerOf } from "../http/text-integer.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "./service.ts";
import type { Idempotency } from "../http/idempotency.ts";
import { bodyOrResponse } from "../http/body-or-response.ts";
import { CachedTaskReads } from "./cached-reads.ts";
import { etagResponseHeader, ifMatchParameter, taskCondition } from "./task-versions.ts";
import { detailQuery, shapeOf } from "./detail-include.ts";
import {
  createdTask,
  createTaskBody,
  idsBody,
  listQuery,
  messageSchema,
  moveBody,
  taskDetailSchema,
  taskListSchema,
  taskParams,
  taskParamsAsText,
  taskStatus,
  updateTaskBody,
} from "./schemas.ts";

/** The list's query with its page numbers as numbers (they arrive as text: text-integer.ts). */
const listedBy = (query: Static<typeof listQuery>) => ({ ...query, page: integerOf(query.page), per_page: integerOf(query.per_page) });

type TaskRoutesOptions = { tasks: Tasks; authenticated: Authenticated; idempotency: Idempotency };

const detail = (summary: string, description?: string) => ({ tags: ["Tasks"], security: [{ bearer: [] }], summary, description });

// These two take transcripts of up to 24 MiB: their heavy-work slot is given back once the work is done.
const releaseSlot = ({ request }: { request: Request }) => releaseHeavyWork(request);

/** Create and list tasks, and delete or move several at once. */
function taskCollectionRoutes({ tasks, authenticated, idempotency }: TaskRoutesOptions, reads: CachedTaskReads) {
  return (
    new Elysia({ name: "task-collection-routes" })
      .use(authenticated)
      .use(idempotency)
      .post(
        "/api/tasks",
        async ({ body, caller, set, metadata, request }) => {
          // A transcript over 1 MiB arrives checked and serialised, apart from the body (transcript-body.ts).
          const stored = storedTranscriptFrom(takePreparedMember(request, "segments"));
          const task = await tasks.create(caller.userId, body, metadata, { stored });
          set.status = 201;
          return { id: task.id, name: task.name, status: task.status, speaker_diarization: task.speakerDiarization, created_at: task.createdAt };
        },
        {
          afterHandle: releaseSlot,
          idempotent: true,
          body: createTaskBody,
          response: { 201: createdTask },
          detail: detail(
            "Create a transcription task",
            "At most 3 tasks in progress (pending, waiting or scribing) per user: 429 beyond. 403 for a video link on the Free plan. With " +
              "`segments`, the transcript is taken as given and the task goes straight to summary and mind map.",
          ),
        },
      )
      .get("/api/tasks", ({ query, caller, set }) => bodyOrResponse(reads.list(caller.userId, listedBy(query), set)), {
        // Optional as a whole: a list asked without a query skips its validation.
        query: t.Optional(listQuery),
        response: { 200: taskListSchema },
        detail: detail("List tasks", "Newest first. `folder` names a folder (422 when it does not exist) or `Uncategorized`."),
      })
      // Registered before `/api/tasks/:id` so `bulk` is never read as an id.
      .delete(
        "/api/tasks/bulk",
        async ({ body, caller, metadata }) => {
          const deleted = await tasks.removeMany(caller.userId, body.ids, metadata);
          return { message: `${deleted} task${deleted === 1 ? "" : "s"} deleted.`, deleted_count: deleted };
        },
        {
          body: idsBody,
          response: { 200: t.Object({ message: t.String(), deleted_count: t.Integer() }) },
          detail: detail("Delete several tasks", "Ids of other users' tasks are ignored."),
        },
      )
      .patch(
        "/api/tasks/bulk/move",
        async ({ body, caller, metadata }) => {
          const moved = await tasks.moveMany(caller.userId, body.ids, body.folder, metadata);
          return { message: `${moved} task${moved === 1 ? "" : "s"} moved to ${body.folder}.`, moved_count: moved };
        },
        {
          body: moveBody,
          response: { 200: t.Object({ message: t.String(), moved_count: t.Integer() }) },
          detail: detail(
            "Move several tasks to a folder",
            "The folder must exist (422); `Uncategorized` (a name no folder may take) takes the tasks out of their folders. " +
              "Ids of other users' tasks are ignored.",
          ),
        },
      )
  );
}

/** One task: its detail, edit, delete and retry; a change may name the version it was made on (`If-Match`). */
function taskItemRoutes({ tasks, authenticated }: TaskRoutesOptions, reads: CachedTaskReads) {
  return new Elysia({ name: "task-item-routes" })
    .use(authenticated)
    .get("/api/tasks/:id", ({ params, query, caller, set, request }) => bodyOrResponse(reads.detail(caller.userId, +params.id, set, shapeOf(query, request))), {
      params: taskParamsAsText,
      // Optional as a whole: a detail asked without a query (nearly every one) skips its validation.
      query: t.Optional(detailQuery),
      response: { 200: taskDetailSchema },
      detail: {
        ...detail(
          "Task detail",
          "The `ETag` header is the task's version, for `If-Match` on a change. `include=words` adds each segment's timed words " +
            "(`words`, empty where none are known); without it the answer is spec 2.1's.",
        ),
        responseHeaders: etagResponseHeader,
      },
    })
    .patch(
      "/api/tasks/:id",
      ({ params, query, body, caller, set, metadata, request }) => {
        const shape = shapeOf(query, request); // checked before anything changes
        // A transcript over 1 MiB arrives checked and serialised, apart from the body (transcript-body.ts).
        const stored = storedTranscriptFrom(takePreparedMember(request, "segments"));
        const updated = tasks.update(caller.userId, params.id, body, metadata, taskCondition(request), stored);
        // Read after the write is in the read model (update waits for it): this ETag and a GET's agree.
        return bodyOrResponse(updated.then(() => reads.detail(caller.userId, params.id, set, shape)));
      },
      {
        afterHandle: releaseSlot,
        params: taskParams,
        query: detailQuery,
        body: updateTaskBody,
        response: { 200: taskDetailSchema },
        detail: {
          ...detail(
            "Update a task",
            "`segments` replaces the transcript; `text` replaces it as text, one line per segment (times kept); `folder: null` takes the task " +
              "out of its folder. The fields change together or not at all. With `If-Match`, only if the task is still at that version " +
              "(412 otherwise); the answer's `ETag` is the new version. A segment sent back unchanged (same id, times and text) keeps its " +
              "timed words; an edited one loses them. `include=words` shapes the answer as on GET.",
          ),
          parameters: [ifMatchParameter],
          responseHeaders: etagResponseHeader,
        },
      },
    )
    .delete(
      "/api/tasks/:id",
      async ({ params, caller, metadata, request }) => {
        await tasks.remove(caller.userId, params.id, metadata, taskCondition(request));
        return { message: "Task deleted." };
      },
      {
        params: taskParams,
        response: { 200: messageSchema },
        detail: { ...detail("Delete a task", "With `If-Match`, only if the task is still at that version (412 otherwise)."), parameters: [ifMatchParameter] },
      },
    )
    .patch(
      "/api/tasks/:id/retry",
      async ({ params, caller, metadata, request }) => {
        const task = await tasks.retry(caller.userId, params.id, metadata, taskCondition(request));
        return { id: task.id, status: task.status, attempts: task.attempts };
      },
      {
        params: taskParams,
        response: { 200: t.Object({ id: t.Integer(), status: taskStatus, attempts: t.Integer() }) },
        detail: {
          ...detail(
            "Retry a failed task",
            "objstore tasks go back to pending, remote and videolink to waiting. 422 when the task has not failed or was retried 3 times " +
              "already; 429 when 3 tasks are in progress. With `If-Match`, only if the task is still at that version (412 otherwise).",
          ),
          parameters: [ifMatchParameter],
        },
      },
    );
}

/** Spec 4.2: create, list, detail, edit, delete, bulk delete and move, retry. */
export function taskRoutes(options: TaskRoutesOptions) {
  const reads = new CachedTaskReads(options.tasks);
  return new Elysia({ name: "task-routes" }).use(taskCollectionRoutes(options, reads)).use(taskItemRoutes(options, reads));
}
