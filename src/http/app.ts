import { Elysia, type AnyElysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { errorHandler } from "./error-handler.ts";
import { healthRoutes } from "../health/routes.ts";
import { defaultRequestLimits, requestLimits, type RequestLimits } from "./request-limits.ts";
import { Semaphore } from "../core/semaphore.ts";

/**
 * The HTTP API: the error mapping, OpenAPI (`/swagger`, JSON at `/swagger/json`, generated from the same
 * `t` schemas that validate requests), health, and the feature plugins the composition root passes in.
 */
export function createHttpApp(features: AnyElysia[] = [], limits: RequestLimits = defaultRequestLimits, heavyWork: Semaphore = new Semaphore(1)): AnyElysia {
  // Responses are still checked against their schemas (and cleaned of extra fields). What this turns off is
  // running TypeBox's transform encoder on them first: our only transforms are Elysia's t.Integer and
  // t.Numeric, whose encoders return the value as it is, and the generic encoder walk cost ~4 µs a response.
  let app: AnyElysia = new Elysia({ encodeSchema: false })
    .use(requestLimits(limits, heavyWork))
    .use(errorHandler)
    .use(
      swagger({
        path: "/swagger",
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
    .use(healthRoutes);
  for (const feature of features) app = app.use(feature);
  return app;
}
