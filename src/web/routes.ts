import { Elysia, NotFoundError, t } from "elysia";
import { immutable, revalidate, serveStatic, type StaticAsset } from "../http/static-assets.ts";
import type { WebBuild } from "./build.ts";

/** Paths that belong to the API and its documents: never the app's page, whatever the client accepts. */
const apiPrefixes = ["/api/", "/v1/", "/swagger", "/storage/", "/avatars/", "/metrics", "/share/", "/sandbox/", "/assets/"];
export const isApiPath = (path: string) => path === "/api" || path === "/v1" || apiPrefixes.some((prefix) => path.startsWith(prefix));

/** A browser's navigation asks for HTML first; fetch, curl and the API's clients do not. */
const wantsHtml = (request: Request) => (request.headers.get("accept") ?? "").includes("text/html");

/** Starts an OpenID Connect login: the provider's authorization URL for this state (and login hint). */
export type IdpStart = (state: string, loginHint?: string) => Promise<string>;

export type WebRoutesOptions = {
  build: Promise<WebBuild>;
  shell: Promise<StaticAsset>;
  idp: IdpStart | null;
  /** The headers of the app's HTML page (its Content-Security-Policy). */
  headers: Record<string, string>;
};

/**
 * The web app: its bundles under `/assets/`, the start of "Sign in with idp", and its HTML page for every
 * browser navigation outside the API's paths (the client-side router draws `/tasks/12`, `/account`, ...).
 * Everything else keeps the API's JSON 404, thrown as Elysia's own so the one error handler answers it
 * (in OpenAI's shape under /v1). Nothing here is in the OpenAPI document: these are pages, not operations.
 */
export function webRoutes({ build, shell, idp, headers }: WebRoutesOptions) {
  const hidden = { detail: { hide: true } };
  const page = async ({ request, path }: { request: Request; path: string }) => {
    if (isApiPath(path) || !wantsHtml(request)) throw new NotFoundError();
    return serveStatic(await shell, request, revalidate, headers);
  };
  return new Elysia({ name: "web-app" })
    .get(
      "/assets/:file",
      async ({ params, request }) => {
        const asset = (await build).assets.get(params.file);
        if (!asset) throw new NotFoundError();
        return serveStatic(asset, request, immutable);
      },
      hidden,
    )
    .get(
      "/auth/idp",
      async ({ query, set }) => {
        if (!idp) throw new NotFoundError();
        // The state is the app's (kept in the tab's sessionStorage and checked on /auth/callback); we only pass it on.
        set.status = 302;
        set.headers.location = await idp(query.state, query.login_hint);
        set.headers["cache-control"] = "no-store";
        return null;
      },
      {
        ...hidden,
        query: t.Object({
          state: t.String({ pattern: "^[A-Za-z0-9_-]{16,128}$" }),
          login_hint: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
        }),
      },
    )
    .get("/", page, hidden)
    .get("/*", page, hidden);
}
