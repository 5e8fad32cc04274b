import { jsonResponse, textResponse } from "../http/openapi/responses.ts";
import { Elysia, t, type AnyElysia } from "elysia";
import type { DocumentStore } from "../readmodels/port.ts";
import { ForbiddenError, NotFoundError } from "../core/errors.ts";
import type { BlobStore } from "../blobs/port.ts";
import { fileResponses, serveTaskMedia, storedMediaKey } from "./audio-routes.ts";
import { audioUrlLifetimeSeconds, signShareAudioQuery, verifyShareAudioQuery } from "./audio-url.ts";
import type { TaskDocument } from "./tasks-projection.ts";
import type { Tasks } from "./service.ts";
import { plainSharePage, shareArticle, shareHead, type Shared } from "./share-page.ts";
import { signedAudioQuery, taskParams } from "./schemas.ts";
import { htmlResponse, type PageContent } from "../http/html.ts";
import type { OriginOf } from "../http/request-origin.ts";

type SharedSegment = { start: number; end: number; text: string; speaker: string | null };

/**
 * An HTML page of the web app (src/web), handed in by the composition root: tasks may not import the web app. With
 * `content`, the page carries that title, meta and body (drawn by the server, then taken over by the app).
 */
export type AppPage = (request: Request, content?: PageContent) => Promise<Response>;

/** The app's page for a link that shows nothing (never shared, or no longer): 404, so crawlers and checks see it gone. */
async function missingPage(appPage: AppPage, request: Request): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.delete("if-none-match"); // a 304 would carry no page
  // The base: without a Host (HTTP/1.0) the request's URL is relative.
  const page = await appPage(new Request(new URL(request.url, "http://localhost").href, { headers }));
  const answer = new Headers(page.headers);
  answer.delete("etag");
  return new Response(page.body, { status: 404, headers: answer });
}

/**
 * `GET /api/tasks/{id}/share-url` and the public, read-only page it points at. A browser (`Accept: text/html`)
 * gets the web app's page with the transcript drawn in it by the server (share-page.ts: title, segments, summary,
 * Open Graph meta), for link previews and readers without script; the app then reads the same URL as JSON and
 * takes over with its player. With no app (`appPage` absent) or for clients that ask for neither, a script-free
 * page of the same. The JSON carries `audio_url`, a signed URL of the task's media at `/share/tasks/{id}/audio`
 * (audio-url.ts), which serves it only while the task is still shared.
 */
export function shareRoutes({
  tasks,
  db,
  blobs,
  urlKey,
  publicUrl,
  originOf,
  authenticated,
  appPage,
}: {
  tasks: Tasks;
  db: DocumentStore;
  blobs: BlobStore;
  /** Signs the share page's audio URLs (the key of the owner's `/audio-url`: the MACs are labelled apart). */
  urlKey: string;
  /** What the share link names: it leaves the app (pasted into chats and mails). */
  publicUrl: string;
  /** Where the caller reached the API, which the page's `audio_url` names (its player loads it at once). */
  originOf: OriginOf;
  authenticated: AnyElysia;
  appPage?: AppPage;
}) {
  const sharedTask = async (id: number) => {
    const task = await db.collection<TaskDocument>("tasks").findOne({ _id: String(id) });
    return task?.shared ? task : null;
  };
  /** A signed URL of the shared task's media, or null when it has none stored (a remote or video-link task, a missing file). */
  const audioUrl = async (task: TaskDocument, origin: string): Promise<string | null> => {
    const key = storedMediaKey(task);
    if (key === null || !(await blobs.head(key))) return null;
    return `${origin}/share/tasks/${task.id}/audio?${signShareAudioQuery(urlKey, task.id)}`;
  };
  const detail = (summary: string, description?: string) => ({ tags: ["Tasks"], security: [{ bearer: [] }], summary, description });
  const owner = new Elysia({ name: "share-owner-routes" })
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

  const page = new Elysia({ name: "share-page" }).get(
    "/share/tasks/:id",
    async ({ params, headers, request, server }) => {
      const accept = headers.accept ?? "";
      const wantsJson = accept.includes("application/json");
      const app = !wantsJson && accept.includes("text/html") ? appPage : undefined;
      const task = await sharedTask(params.id);
      if (!task) {
        if (app) return missingPage(app, request);
        throw new NotFoundError("This transcript is not shared.");
      }
      const transcript = await tasks.transcript(params.id);
      const segments = ((transcript?.segments ?? []) as SharedSegment[]).map(({ start, end, text, speaker }) => ({
        start,
        end,
        text,
        speaker: speaker ?? null,
      }));
      const shared = {
        id: task.id,
        name: task.name,
        status: task.status,
        duration: task.duration,
        created_at: task.createdAt,
        summary: transcript?.summary ?? null,
        mindmap: transcript?.mindmap ?? null,
        segments,
      } satisfies Shared & Record<string, unknown>;
      if (wantsJson) return { ...shared, audio_url: await audioUrl(task, originOf({ request, server })) };
      // Drawn afresh each time (edits, a share removed): no validator to keep, nothing for a cache to hold on to.
      if (app) return app(request, { ...shareHead(shared), body: shareArticle(shared) });
      return htmlResponse(plainSharePage(shared), request, {
        headers: {
          "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'",
          "cache-control": "no-cache",
        },
      });
    },
    {
      params: taskParams,
      detail: {
        responses: {
          200: {
            description: "The shared transcript: an HTML page, or JSON for `Accept: application/json`.",
            content: {
              ...textResponse("", "text/html").content,
              "application/json": {
                schema: {
                  type: "object" as const,
                  properties: {
                    id: { type: "integer" },
                    name: { type: "string" },
                    status: { type: "string" },
                    duration: { type: "integer" },
                    created_at: { type: "string", format: "date-time" },
                    summary: { type: "string", nullable: true },
                    mindmap: { type: "string", nullable: true },
                    audio_url: {
                      type: "string",
                      nullable: true,
                      description: `The task's media at a signed URL for a media element (no token, Range), at the address the request came to, good for ${audioUrlLifetimeSeconds / 3600} hours while the task stays shared; null when the task has no stored media.`,
                    },
                    segments: {
                      type: "array",
                      items: {
                        type: "object",
                        properties: {
                          start: { type: "integer" },
                          end: { type: "integer" },
                          text: { type: "string" },
                          speaker: { type: "string", nullable: true },
                        },
                        required: ["start", "end", "text", "speaker"],
                      },
                    },
                  },
                  required: ["id", "name", "status", "duration", "created_at", "summary", "mindmap", "audio_url", "segments"],
                },
              },
            },
          },
        },
        tags: ["Tasks"],
        summary: "Public page of a shared transcript",
        description:
          "HTML (the title, the transcript with times and speakers, the summary, and Open Graph and Twitter meta for link previews; for `Accept: text/html`, the web app's page, which the app then takes over), or JSON for `Accept: application/json`. 404 when not shared.",
      },
    },
  );

  const audio = new Elysia({ name: "share-audio" }).get(
    "/share/tasks/:id/audio",
    async ({ params, query, request }) => {
      // Checked before the task is read, so a bad URL tells nothing about which tasks exist or are shared.
      if (!verifyShareAudioQuery(urlKey, params.id, query)) throw new ForbiddenError("The audio URL is invalid or has expired.");
      // A genuine URL stops working the moment its task stops being shared (or is deleted), not only when it expires.
      const task = await sharedTask(params.id);
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
          "The `audio_url` of `GET /share/tasks/{id}` (JSON); no token. Serves what `/api/tasks/{id}/audio` serves (Range, 206, 416) while the task is shared: 404 once its owner stops sharing it, 403 when the signature is wrong or expired.",
      },
    },
  );

  return new Elysia({ name: "share-feature" }).use(owner).use(page).use(audio);
}
