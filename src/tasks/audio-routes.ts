import { Elysia, type AnyElysia } from "elysia";
import { NotFoundError } from "../core/errors.ts";
import { isValidBlobKey, type BlobStore } from "../blobs/port.ts";
import { serveBlob } from "../blobs/serve.ts";
import { contentRange, fileResponse, jsonResponse } from "../http/openapi/responses.ts";
import type { Tasks } from "./service.ts";
import { taskParams } from "./schemas.ts";
import { ownsMediaKey } from "../media/ownership.ts";

const missing = () => new NotFoundError("The task has no stored audio.");

/**
 * Spec 4.2 `GET /api/tasks/{id}/audio`: the original file of an `objstore` task, with Range support.
 * Only keys under the owner's own upload prefix are served, so a task created by hand with another
 * account's path cannot read that account's file.
 */
export function audioRoutes({ tasks, blobs, authenticated }: { tasks: Tasks; blobs: BlobStore; authenticated: AnyElysia }) {
  return new Elysia({ name: "audio-routes" }).use(authenticated).get(
    "/api/tasks/:id/audio",
    async ({ params, caller, request }) => {
      const task = await tasks.owned(caller.userId, params.id);
      if (task.disk !== "objstore" || !isValidBlobKey(task.path) || !ownsMediaKey(task.userId, task.path)) throw missing();
      const headers = new Headers({
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox",
        "cache-control": "private, no-store",
      });
      const response = await serveBlob(blobs, task.path, request, headers);
      if (!response) throw missing();
      return response;
    },
    {
      params: taskParams,
      detail: {
        responses: {
          200: fileResponse("The whole file, with its content type (audio or video).", ["audio/*", "video/*"]),
          206: fileResponse("The part of the file the Range asked for.", ["audio/*", "video/*"], contentRange),
          416: jsonResponse("Range not satisfiable.", { $ref: "#/components/schemas/Error" }, contentRange),
        },
        tags: ["Tasks"],
        security: [{ bearer: [] }],
        summary: "Stream the task's original file",
        description:
          "objstore tasks only; `Range: bytes=…` gives 206 with Content-Range (416 when unsatisfiable). 404 when the file is missing or the task is not on objstore.",
      },
    },
  );
}
