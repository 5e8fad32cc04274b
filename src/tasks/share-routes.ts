import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "./service.ts";
import { taskParams } from "./schemas.ts";
import { shareAudioRoutes } from "./share-audio-routes.ts";
import { sharePageRoutes, type SharePageOptions } from "./share-page-routes.ts";

export type { AppPage } from "./share-page-routes.ts";

/** `GET` and `DELETE /api/tasks/{id}/share-url`: the owner shares a task, or stops sharing it. */
function shareOwnerRoutes({ tasks, publicUrl, authenticated }: { tasks: Tasks; publicUrl: string; authenticated: Authenticated }) {
  const detail = (summary: string, description?: string) => ({ tags: ["Tasks"], security: [{ bearer: [] }], summary, description });
  return new Elysia({ name: "share-owner-routes" })
    .use(authenticated)
    .get(
      "/api/tasks/:id/share-url",
      async ({ params, caller, metadata }) => {
        await tasks.share(caller.userId, params.id, metadata);
        return { share_url: `${publicUrl}/share/tasks/${params.id}` };
      },
      {
        params: taskParams,
        response: { 200: t.Object({ share_url: t.String() }) },
        detail: detail("Get or create the public share URL", "The page stays public until the share is removed (DELETE) or the task is deleted."),
      },
    )
    .delete(
      "/api/tasks/:id/share-url",
      async ({ params, caller, metadata }) => {
        await tasks.unshare(caller.userId, params.id, metadata);
        return { message: "The task is no longer shared." };
      },
      { params: taskParams, response: { 200: t.Object({ message: t.String() }) }, detail: detail("Stop sharing a task") },
    );
}

export type ShareRoutesOptions = SharePageOptions & {
  /** What the share link names: it leaves the app (pasted into chats and mails). */
  publicUrl: string;
  authenticated: Authenticated;
};

/**
 * Sharing a task: the owner's `/api/tasks/{id}/share-url`, the public page it points at (share-page-routes.ts) and
 * that page's signed audio URL (share-audio-routes.ts), which serves the media only while the task is still shared.
 */
export function shareRoutes(options: ShareRoutesOptions) {
  return new Elysia({ name: "share-feature" }).use(shareOwnerRoutes(options)).use(sharePageRoutes(options)).use(shareAudioRoutes(options));
}
