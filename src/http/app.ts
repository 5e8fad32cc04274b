import { Elysia, type AnyElysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { errorHandler } from "./error-handler.ts";
import { healthRoutes } from "../health/routes.ts";
import { defaultRequestLimits, requestLimits, type RequestLimits } from "./request-limits.ts";
import { Semaphore } from "../core/semaphore.ts";
import { buildOpenApi, type OpenApiOptions, type RouteShape } from "./openapi/document.ts";
import { requestObserver, type RequestObserver } from "./request-observer.ts";
import { apiReferenceRoutes, apiReferenceScriptPath, offlineScalarConfig } from "./api-reference.ts";

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
};

export function createHttpApp(features: AnyElysia[] = [], options: HttpAppOptions = {}): AnyElysia {
  const { limits = defaultRequestLimits, heavyWork = new Semaphore(1), openApi = bareOpenApiOptions, observers = [] } = options;
  // Responses are still checked against their schemas (and cleaned of extra fields). What this turns off is
  // running TypeBox's transform encoder on them first: our only transforms are Elysia's t.Integer and
  // t.Numeric, whose encoders return the value as it is, and the generic encoder walk cost ~4 µs a response.
  let app: AnyElysia = new Elysia({ encodeSchema: false })
    // First, so that every route (health and the 413s of the limits included) is observed, and timed from its first hook.
    .use(requestObserver(observers))
    .use(requestLimits(limits, heavyWork))
    .use(errorHandler)
    .use(
      swagger({
        path: "/swagger",
        // The plugin's own document (OpenAPI 3.0 as Elysia sees the routes) stays out of the way; the page at
        // /swagger shows ours, built from the same routes by buildOpenApi.
        specPath: "/swagger/elysia.json",
        // The page's script from the pinned package, served by us (api-reference.ts): no CDN, no `@latest`.
        scalarCDN: apiReferenceScriptPath,
        scalarConfig: { ...offlineScalarConfig, spec: { url: "/swagger/json" } },
        documentation: {
          info: {
            title: "Scribe transcription API",
            version: "0.1.0",
            description: "Timed transcripts, summaries and mind maps from audio and video. Errors are JSON with `message`; 422 adds `errors` keyed by field.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Access token or API key" } } },
        },
      }),
    )
    .use(apiReferenceRoutes)
    .use(healthRoutes);
  for (const feature of features) app = app.use(feature);
  let document: unknown = null;
  // Built on the first request, when every route is registered; the routes do not change after.
  app = app.get("/swagger/json", () => (document ??= buildOpenApi(app.routes as RouteShape[], openApi)), { detail: { hide: true } });
  return app;
}
