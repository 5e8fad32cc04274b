import { serveStatic, revalidate } from "../http/static-assets.ts";
import { buildWebApp, type WebBuild } from "./build.ts";
import { drawnPage, shellHeaders, shellPage, type WebConfig } from "./shell.ts";
import { htmlResponse, type PageContent } from "../http/html.ts";
import { webRoutes, type IdpStart } from "./routes.ts";

export { buildWebApp, type WebBuild } from "./build.ts";
export { contentSecurityPolicy, type WebConfig } from "./shell.ts";
export { isApiPath, type IdpStart } from "./routes.ts";

export type WebApp = {
  routes: ReturnType<typeof webRoutes>;
  /** Resolves once the app is built: start-up waits for it, so a broken build fails there, not on a visitor. */
  ready: Promise<WebBuild>;
  /**
   * The app's HTML page, for a route elsewhere that answers a browser with a page of the app (the share page,
   * `/share/tasks/{id}`): same bundles, same Content-Security-Policy. With `content`, the page carries its title,
   * meta and body as the route drew them (escaped there), for readers without script; the app then takes over.
   */
  page(request: Request, content?: PageContent): Promise<Response>;
};

let cached: Promise<WebBuild> | null = null;

/**
 * The browser app served by the api role. Built once per process, when the first api role starts, and kept
 * in memory; every page of the app is the same HTML shell.
 */
export function webApp({ idp, storageOrigins = [] }: { idp: IdpStart | null; storageOrigins?: readonly string[] }): WebApp {
  cached ??= buildWebApp();
  const ready = cached;
  const config: WebConfig = { idp: idp !== null };
  const shell = ready.then((build) => shellPage(build, config));
  const headers = shellHeaders(storageOrigins);
  return {
    routes: webRoutes({ build: ready, shell, idp, headers }),
    ready,
    page: async (request, content) => {
      if (!content) return serveStatic(await shell, request, revalidate, headers);
      // Drawn for this request: no validator, and a cache asks again each time (an edit, a share removed).
      return htmlResponse(drawnPage(await ready, config, content), request, { headers: { ...headers, "cache-control": revalidate } });
    },
  };
}
