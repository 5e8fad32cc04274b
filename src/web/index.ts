import type { AnyElysia } from "elysia";
import { serveStatic, revalidate } from "../http/static-assets.ts";
import { buildWebApp, type WebBuild } from "./build.ts";
import { shellHeaders, shellPage, type WebConfig } from "./shell.ts";
import { webRoutes, type IdpStart } from "./routes.ts";

export { buildWebApp, type WebBuild } from "./build.ts";
export { contentSecurityPolicy, type WebConfig } from "./shell.ts";
export { isApiPath, type IdpStart } from "./routes.ts";

export type WebApp = {
  routes: AnyElysia;
  /** Resolves once the app is built: start-up waits for it, so a broken build fails there, not on a visitor. */
  ready: Promise<WebBuild>;
  /**
   * The app's HTML page, for a route elsewhere that answers a browser with a page of the app (the share
   * page, `/share/tasks/{id}`, once the app draws it): same bundles, same Content-Security-Policy.
   */
  page(request: Request): Promise<Response>;
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
    page: async (request) => serveStatic(await shell, request, revalidate, headers),
  };
}
