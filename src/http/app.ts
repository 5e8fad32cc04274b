import { Elysia, type AnyElysia } from "elysia";
import { errorHandler } from "./error-handler.ts";
import { healthRoutes } from "../health/routes.ts";
import { defaultRequestLimits, requestLimits, type BeforeSizeRefusal, type RequestLimits } from "./request-limits.ts";
import { Semaphore } from "../core/semaphore.ts";
import { buildOpenApi, type OpenApiOptions, type RouteShape } from "./openapi/document.ts";
import { requestObserver, type RequestObserver } from "./request-observer.ts";
import { credentialFirst } from "./credential-first.ts";
import { apiReferenceRoutes } from "./api-reference.ts";
import { guardAnswers } from "./last-resort.ts";
import { queryEncoding } from "./text-encoding.ts";

/**
 * The HTTP API: the error mapping, OpenAPI (`/swagger`, JSON at `/swagger/json`, generated from the same
 * `t` schemas that validate requests), health, and the feature plugins the composition root passes in.
 */
/** The document of an app the composition root did not describe further (tests of the HTTP skeleton). */
const bareOpenApiOptions: OpenApiOptions = {
  info: { title: "Scribe transcription API", version: "0.1.0", description: "Timed transcripts from audio and video." },
  servers: [],
  tags: [],
  named: {},
  errors: {},
};

/** How the app is set up; each part has a default for tests of the HTTP skeleton. */
export type HttpAppOptions = {
  limits?: RequestLimits;
  heavyWork?: Semaphore;
  openApi?: OpenApiOptions;
  /** Told about every answered request (the log line, the HTTP metrics). */
  observers?: readonly RequestObserver[];
  /** Runs before a body is refused for its size (413), and may answer otherwise by throwing (request-limits.ts). */
  beforeSizeRefusal?: BeforeSizeRefusal;
  /** The API's JSON and text answers compressed as the client accepts (COMPRESSION; on by default). */
  compression?: boolean;
};

export function createHttpApp(features: AnyElysia[] = [], options: HttpAppOptions = {}) {
  const {
    limits = defaultRequestLimits,
    heavyWork = new Semaphore(1),
    openApi = bareOpenApiOptions,
    observers = [],
    beforeSizeRefusal,
    compression = true,
  } = options;
  // The routes, for what a large body's route reads of it (request-limits.ts): looked up once they are all there.
  const routes = () => app.routes;
  // Responses are still checked against their schemas (and cleaned of extra fields). What this turns off is
  // running TypeBox's transform encoder on them first: our only transforms are Elysia's t.Integer and
  // t.Numeric, whose encoders return the value as it is, and the generic encoder walk cost ~4 µs a response.
  let app = new Elysia({ encodeSchema: false })
    // First, so that every route (health and the 413s of the limits included) is observed, and timed from its first hook.
    .use(requestObserver(observers))
    // Before the limits: an anonymous big body is refused before it is read or waits for a heavy-work slot.
    .use(credentialFirst(limits.bodyBytes))
    .use(requestLimits(limits, heavyWork, routes, beforeSizeRefusal))
    .use(queryEncoding)
    .use(errorHandler)
    // The API reference at /swagger, showing the document at /swagger/json (ours: buildOpenApi, below).
    .use(apiReferenceRoutes({ title: openApi.info.title, documentUrl: "/swagger/json", serverUrls: openApi.servers.map((server) => server.url) }))
    .use(healthRoutes);
  // The features are any plugins: their routes are there at run time, not in the app's type.
  for (const feature of features) app = app.use(feature);
  let document: unknown = null;
  // Built on the first request, when every route is registered; the routes do not change after.
  const documented = app.get("/swagger/json", () => (document ??= buildOpenApi(app.routes as RouteShape[], openApi)), { detail: { hide: true } });
  // Around everything: no throw reaches Bun, and every page gets its security headers (last-resort.ts).
  return guardAnswers(documented, observers, { compression });
}
