import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import { isValidBlobKey, type BlobStore } from "../blobs/port.ts";
import { serveBlob } from "../blobs/serve.ts";
import { contentRange, fileResponse, jsonResponse } from "../http/openapi/responses.ts";
import type { Tasks } from "./service.ts";
import { signedAudioQuery, taskParams } from "./schemas.ts";
import { ownsMediaKey } from "../media/ownership.ts";
import type { TaskDocument } from "./tasks-projection.ts";
import { audioUrlLifetimeSeconds, signAudioQuery, verifyAudioQuery } from "./audio-url.ts";
import type { OriginOf } from "../http/request-origin.ts";

const missing = () => new NotFoundError("The task has no stored audio.");

/** The key of a task's own stored media, or null: objstore tasks only, and only keys under the owner's own prefix. */
export function storedMediaKey(task: Pick<TaskDocument, "disk" | "path" | "userId">): string | null {
  return task.disk === "objstore" && isValidBlobKey(task.path) && ownsMediaKey(task.userId, task.path) ? task.path : null;
}

/** A task's stored media with Range (200, 206, 416), as the owner's and the share page's routes serve it; 404 when it is gone. */
export async function serveTaskMedia(blobs: BlobStore, key: string, request: Request): Promise<Response> {
  const headers = new Headers({
    "x-content-type-options": "nosniff",
    "content-security-policy": "sandbox",
    "cache-control": "private, no-store",
  });
  const response = await serveBlob(blobs, key, request, headers);
  if (!response) throw missing();
  return response;
}

export const fileResponses = {
  200: fileResponse("The whole file, with its content type (audio or video).", ["audio/*", "video/*"]),
  206: fileResponse("The part of the file the Range asked for.", ["audio/*", "video/*"], contentRange),
  416: jsonResponse("Range not satisfiable.", { $ref: "#/components/schemas/Error" }, contentRange),
};

export type AudioRoutesDependencies = {
  tasks: Tasks;
  blobs: BlobStore;
  authenticated: Authenticated;
  /** Signs the URLs of `/audio-url` (a key derived from the service secret, so every API replica verifies them). */
  urlKey: string;
  /** The address the caller reached the API at, which its audio URL names (the player loads it at once). */
  originOf: OriginOf;
};

/**
 * Spec 4.2 `GET /api/tasks/{id}/audio`: the original file of an `objstore` task, with Range support.
 * Only keys under the owner's own upload prefix are served, so a task created by hand with another
 * account's path cannot read that account's file. `GET /api/tasks/{id}/audio-url` gives the same file
 * at a signed URL (audio-url.ts) for media elements, which cannot send a token.
 */
export function audioRoutes({ tasks, blobs, authenticated, urlKey, originOf }: AudioRoutesDependencies) {
  /** The key of the task's own stored media, or 404. */
  async function audioKey(userId: number, taskId: number): Promise<string> {
    const key = storedMediaKey(await tasks.owned(userId, taskId));
    if (key === null) throw missing();
    return key;
  }

  async function serveAudio(userId: number, taskId: number, request: Request): Promise<Response> {
    return serveTaskMedia(blobs, await audioKey(userId, taskId), request);
  }

  const owner = new Elysia({ name: "audio-routes" })
    .use(authenticated)
    .get("/api/tasks/:id/audio", ({ params, caller, request }) => serveAudio(caller.userId, params.id, request), {
      params: taskParams,
      detail: {
        responses: fileResponses,
        tags: ["Tasks"],
        security: [{ bearer: [] }],
        summary: "Stream the task's original file",
        description:
          "objstore tasks only; `Range: bytes=…` gives 206 with Content-Range (416 when unsatisfiable). 404 when the file is missing or the " +
          "task is not on objstore.",
      },
    })
    .get(
      "/api/tasks/:id/audio-url",
      async ({ params, caller, request, server }) => {
        // The same checks as the file itself, so a URL is only handed out for audio that can be served.
        if (!(await blobs.head(await audioKey(caller.userId, params.id)))) throw missing();
        const query = signAudioQuery(urlKey, caller.userId, params.id);
        return { url: `${originOf({ request, server })}/api/tasks/${params.id}/audio/signed?${query}`, expires_in: audioUrlLifetimeSeconds };
      },
      {
        params: taskParams,
        response: { 200: t.Object({ url: t.String(), expires_in: t.Integer() }) },
        detail: {
          tags: ["Tasks"],
          security: [{ bearer: [] }],
          summary: "A signed URL of the task's original file, for media players",
          description:
            "For `<audio>`/`<video>` elements, which cannot send a token: the URL serves what `/audio` serves (Range, 206, 416) without a " +
            "token, for `expires_in` seconds (6 hours). 404 when `/audio` would be 404.",
        },
      },
    );

  const signed = new Elysia({ name: "audio-signed-routes" }).get(
    "/api/tasks/:id/audio/signed",
    ({ params, query, request }) => {
      const grant = verifyAudioQuery(urlKey, params.id, query);
      // Checked before the task is read, so a bad URL tells nothing about which tasks exist.
      if (!grant) throw new ForbiddenError("The audio URL is invalid or has expired.");
      return serveAudio(grant.userId, grant.taskId, request);
    },
    {
      params: taskParams,
      query: signedAudioQuery,
      detail: {
        responses: { ...fileResponses, 403: jsonResponse("The URL is forged, altered or expired.", { $ref: "#/components/schemas/Error" }) },
        tags: ["Tasks"],
        security: [],
        summary: "The task's original file at a signed URL",
        description: "The URL `GET /api/tasks/{id}/audio-url` gives; no token. 403 when the signature is wrong or expired.",
      },
    },
  );
  return new Elysia({ name: "audio" }).use(owner).use(signed);
}
