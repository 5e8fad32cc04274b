import { jsonResponse } from "../http/openapi/responses.ts";
import { Elysia, t } from "elysia";
import type { DocumentStore } from "../readmodels/port.ts";
import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import type { BlobStore } from "../blobs/port.ts";
import { fileResponses, serveTaskMedia, storedMediaKey } from "./audio-routes.ts";
import { verifyShareAudioQuery } from "./audio-url.ts";
import { findSharedTask } from "./shared-task.ts";
import { signedAudioQuery, taskParams } from "./schemas.ts";

/**
 * `GET /share/tasks/{id}/audio`: the shared task's media at the share page's signed URL (audio-url.ts), served
 * only while the task is still shared. `urlKey` is the key the page's `audio_url` was signed with.
 */
export function shareAudioRoutes({ db, blobs, urlKey }: { db: DocumentStore; blobs: BlobStore; urlKey: string }) {
  return new Elysia({ name: "share-audio" }).get(
    "/share/tasks/:id/audio",
    async ({ params, query, request }) => {
      // Checked before the task is read, so a bad URL tells nothing about which tasks exist or are shared.
      if (!verifyShareAudioQuery(urlKey, params.id, query)) throw new ForbiddenError("The audio URL is invalid or has expired.");
      // A genuine URL stops working the moment its task stops being shared (or is deleted), not only when it expires.
      const task = await findSharedTask(db, params.id);
      if (!task) throw new NotFoundError("This transcript is not shared.");
      const key = storedMediaKey(task);
      if (key === null) throw new NotFoundError("The task has no stored audio.");
      return serveTaskMedia(blobs, key, request);
    },
    {
      params: taskParams,
      query: t.Omit(signedAudioQuery, ["user"]),
      detail: {
        responses: {
          ...fileResponses,
          403: jsonResponse("The URL is forged, altered or expired.", { $ref: "#/components/schemas/Error" }),
          404: jsonResponse("The task is no longer shared, or its file is missing.", { $ref: "#/components/schemas/Error" }),
        },
        tags: ["Tasks"],
        security: [],
        summary: "A shared task's original file at the share page's signed URL",
        description:
          "The `audio_url` of `GET /share/tasks/{id}` (JSON); no token. Serves what `/api/tasks/{id}/audio` serves (Range, 206, 416) while " +
          "the task is shared: 404 once its owner stops sharing it, 403 when the signature is wrong or expired.",
      },
    },
  );
}
