import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { correlationIdOf } from "../http/correlation.ts";
import type { Notifications } from "./service.ts";

export const notificationView = t.Object({
  id: t.String({ description: "Stable id (the id of the event that caused the notification)." }),
  title: t.String({
    description: "Plan changed | Balance low | Task finished | Task failed | Export ready | Task problem | Webhook disabled | Tasks to be deleted",
  }),
  message: t.String(),
  task_id: t.Nullable(
    t.Integer({
      description:
        "The task it is about (Task finished, Task failed, Export ready); null for the account's own. A deleted task's notifications are no longer listed.",
    }),
  ),
  read_at: t.Nullable(t.String({ description: "When it was marked read; null while unread." })),
  created_at: t.String(),
});

/** GET /api/notifications and POST /api/notifications/mark-all-as-read (spec 4.6). */
export function notificationRoutes({ notifications, authenticated }: { notifications: Notifications; authenticated: Authenticated }) {
  const detail = (summary: string, description?: string) => ({ tags: ["Notifications"], security: [{ bearer: [] }], summary, description });
  return (
    new Elysia({ name: "notification-routes" })
      .use(authenticated)
      // A copy: the kept list is shared by every request, and Elysia's types take no readonly array.
      .get("/api/notifications", async ({ caller }) => [...(await notifications.recent(caller.userId))], {
        response: { 200: t.Array(notificationView) },
        detail: detail(
          "The 10 most recent notifications, newest first",
          "Kinds: plan changed, balance low (below 10 % of the period's total or below 60 s), task finished, task failed, " +
            "export ready, task problem, webhook disabled, tasks to be deleted (a day before the account's retention deletes them).",
        ),
      })
      .post(
        "/api/notifications/mark-all-as-read",
        async ({ caller, request }) => {
          await notifications.markAllRead(caller.userId, correlationIdOf(request));
          return { success: true };
        },
        { response: { 200: t.Object({ success: t.Boolean() }) }, detail: detail("Mark every unread notification as read") },
      )
  );
}
