import { Elysia } from "elysia";
import type { DocumentStore } from "../readmodels/port.ts";
import { NotFoundError } from "../core/errors.ts";
import type { BlobStore } from "../blobs/port.ts";
import { storedMediaKey } from "./audio-routes.ts";
import { signShareAudioQuery } from "./audio-url.ts";
import type { TaskDocument } from "./tasks-projection.ts";
import type { Tasks } from "./service.ts";
import { plainSharePage, shareArticle, shareHead, type Shared } from "./share-page.ts";
import { sharePageDetail } from "./share-page-openapi.ts";
import { findSharedTask } from "./shared-task.ts";
import { taskParams } from "./schemas.ts";
import { htmlResponse, type PageContent } from "../http/html.ts";
import type { OriginOf } from "../http/request-origin.ts";

type SharedSegment = { start: number; end: number; text: string; speaker: string | null };

/**
 * An HTML page of the web app (src/web), handed in by the composition root: tasks may not import the web app. With
 * `content`, the page carries that title, meta and body (drawn by the server, then taken over by the app).
 */
export type AppPage = (request: Request, content?: PageContent) => Promise<Response>;

export type SharePageOptions = {
  tasks: Tasks;
  db: DocumentStore;
  blobs: BlobStore;
  /** Signs the share page's audio URLs (the key of the owner's `/audio-url`: the MACs are labelled apart). */
  urlKey: string;
  /** Where the caller reached the API, which the page's `audio_url` names (its player loads it at once). */
  originOf: OriginOf;
  appPage?: AppPage;
};

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

/** What the page shows of a shared task: its transcript's segments, summary and mind map. */
async function sharedView(tasks: Tasks, task: TaskDocument) {
  const transcript = await tasks.transcript(task.id);
  const segments = ((transcript?.segments ?? []) as SharedSegment[]).map(({ start, end, text, speaker }) => ({
    start,
    end,
    text,
    speaker: speaker ?? null,
  }));
  return {
    id: task.id,
    name: task.name,
    status: task.status,
    duration: task.duration,
    created_at: task.createdAt,
    summary: transcript?.summary ?? null,
    mindmap: transcript?.mindmap ?? null,
    segments,
  } satisfies Shared & Record<string, unknown>;
}

/**
 * `GET /share/tasks/{id}`, the public, read-only page a share link points at. A browser (`Accept: text/html`) gets
 * the web app's page with the transcript drawn in it by the server (share-page.ts: title, segments, summary, Open
 * Graph meta), for link previews and readers without script; the app then reads the same URL as JSON and takes over
 * with its player. With no app (`appPage` absent) or for clients that ask for neither, a script-free page of the
 * same. The JSON carries `audio_url`, a signed URL of the task's media at `/share/tasks/{id}/audio` (audio-url.ts).
 */
export function sharePageRoutes({ tasks, db, blobs, urlKey, originOf, appPage }: SharePageOptions) {
  /** A signed URL of the shared task's media, or null when it has none stored (a remote or video-link task, a missing file). */
  const audioUrl = async (task: TaskDocument, origin: string): Promise<string | null> => {
    const key = storedMediaKey(task);
    if (key === null || !(await blobs.head(key))) return null;
    return `${origin}/share/tasks/${task.id}/audio?${signShareAudioQuery(urlKey, task.id)}`;
  };
  return new Elysia({ name: "share-page" }).get(
    "/share/tasks/:id",
    async ({ params, headers, request, server }) => {
      const accept = headers.accept ?? "";
      const wantsJson = accept.includes("application/json");
      const app = !wantsJson && accept.includes("text/html") ? appPage : undefined;
      const task = await findSharedTask(db, params.id);
      if (!task) {
        if (app) return missingPage(app, request);
        throw new NotFoundError("This transcript is not shared.");
      }
      const shared = await sharedView(tasks, task);
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
    { params: taskParams, detail: sharePageDetail },
  );
}
