import { releaseHeavyWork } from "../http/heavy-work-slots.ts";
import { Elysia, t, type AnyElysia } from "elysia";
import type { Tasks } from "./service.ts";
import type { Idempotency } from "../http/idempotency.ts";
import { CachedTaskReads } from "./cached-reads.ts";
import { etagResponseHeader, ifMatchParameter, taskCondition } from "./task-versions.ts";
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
  updateTaskBody,
} from "./schemas.ts";

/** Spec 4.2: create, list, detail, edit, delete, bulk delete and move, retry. */
export function taskRoutes({ tasks, authenticated, idempotency }: { tasks: Tasks; authenticated: AnyElysia; idempotency: Idempotency }) {
  const detail = (summary: string, description?: string) => ({ tags: ["Tasks"], security: [{ bearer: [] }], summary, description });
  const reads = new CachedTaskReads(tasks);

  return (
    new Elysia({ name: "task-routes" })
      .use(authenticated)
      .use(idempotency)
      .post(
        "/api/tasks",
        async ({ body, caller, set, metadata }) => {
          const task = await tasks.create(caller.userId, body, metadata);
          set.status = 201;
          return { id: task.id, name: task.name, status: task.status, speaker_diarization: task.speakerDiarization, created_at: task.createdAt };
        },
        {
          // These two take transcripts of up to 24 MiB: their heavy-work slot is given back once the work is done.
          afterHandle: ({ request }) => releaseHeavyWork(request),
          idempotent: true,
          body: createTaskBody,
          response: { 201: createdTask },
          detail: detail(
            "Create a transcription task",
            "At most 3 tasks in progress (pending, waiting or scribing) per user: 429 beyond. 403 for a video link on the Free plan. With `segments`, the transcript is taken as given and the task goes straight to summary and mind map.",
          ),
        },
      )
      .get("/api/tasks", ({ query, caller, set }) => reads.list(caller.userId, query, set), {
        query: listQuery,
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
            "The folder must exist (422); `Uncategorized` (a name no folder may take) takes the tasks out of their folders. Ids of other users' tasks are ignored.",
          ),
        },
      )
      .get("/api/tasks/:id", ({ params, caller, set }) => reads.detail(caller.userId, params.id, set), {
        params: taskParams,
        response: { 200: taskDetailSchema },
        detail: {
          ...detail("Task detail", "The `ETag` header is the task's version, for `If-Match` on a change."),
          responseHeaders: etagResponseHeader,
        },
      })
      .patch(
        "/api/tasks/:id",
        async ({ params, body, caller, set, metadata, request }) => {
          await tasks.update(caller.userId, params.id, body, metadata, taskCondition(request));
          // Read after the write is in the read model (update waits for it): this ETag and a GET's agree.
          return reads.detail(caller.userId, params.id, set);
        },
        {
          afterHandle: ({ request }) => releaseHeavyWork(request),
          params: taskParams,
          body: updateTaskBody,
          response: { 200: taskDetailSchema },
          detail: {
            ...detail(
              "Update a task",
              "`segments` replaces the transcript; `text` replaces it as text, one line per segment (times kept); `folder: null` takes the task out of its folder. The fields change together or not at all. With `If-Match`, only if the task is still at that version (412 otherwise); the answer's `ETag` is the new version.",
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
          response: { 200: t.Object({ id: t.Integer(), status: t.String(), attempts: t.Integer() }) },
          detail: {
            ...detail(
              "Retry a failed task",
              "objstore tasks go back to pending, remote and videolink to waiting. 422 when the task has not failed or was retried 3 times already; 429 when 3 tasks are in progress. With `If-Match`, only if the task is still at that version (412 otherwise).",
            ),
            parameters: [ifMatchParameter],
          },
        },
      )
  );
}
