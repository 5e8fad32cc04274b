import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { TaskHistoryDocument } from "./task-history-projection.ts";
import type { Tasks } from "./service.ts";
import { taskParams } from "./schemas.ts";

/** `GET /api/tasks/{id}/history`: the task's events for its owner, oldest first (analysts). */
export function historyRoutes({ tasks, db, authenticated }: { tasks: Tasks; db: DocumentStore; authenticated: Authenticated }) {
  return new Elysia({ name: "task-history-routes" }).use(authenticated).get(
    "/api/tasks/:id/history",
    async ({ params, caller }) => {
      await tasks.owned(caller.userId, params.id);
      const events = await db.collection<TaskHistoryDocument>("task_history").find({ taskId: params.id }, { sort: { position: 1 } });
      return events.map((e) => ({
        id: e._id,
        type: e.type,
        time: e.time,
        position: e.position,
        user_id: e.actingUserId,
        system: e.actingSystem ?? null,
        data: e.summary,
      }));
    },
    {
      params: taskParams,
      response: {
        200: t.Array(
          t.Object({
            id: t.String({ description: "Event id" }),
            type: t.String({ description: "Event type, e.g. TaskCreated, TaskRenamed, TaskFinished" }),
            time: t.String(),
            position: t.Integer({ description: "Position in the global log (see `bun run events`)" }),
            user_id: t.Nullable(t.Integer({ description: "Acting user; null when the system acted" })),
            system: t.Nullable(
              t.String({ description: "The part of the system that acted (a worker such as `transcription`, a job, `operator`); null when a user did" }),
            ),
            data: t.Record(t.String(), t.Unknown(), { description: "The event's data, transcripts summarised by size" }),
          }),
        ),
      },
      detail: {
        tags: ["Tasks"],
        security: [{ bearer: [] }],
        summary: "The task's event history",
        description: "The same events `bun run events --stream task-<id>` prints.",
      },
    },
  );
}
