import { Elysia, type AnyElysia } from "elysia";
import { swagger } from "@elysiajs/swagger";
import { errorHandler } from "./error-handler.ts";
import { healthRoutes } from "../health/routes.ts";

/**
 * The HTTP API: the error mapping, OpenAPI (`/swagger`, JSON at `/swagger/json`, generated from the same
 * `t` schemas that validate requests), health, and the feature plugins the composition root passes in.
 */
export function createHttpApp(features: AnyElysia[] = []): AnyElysia {
  let app: AnyElysia = new Elysia()
    .use(errorHandler)
    .use(
      swagger({
        path: "/swagger",
        documentation: {
          info: {
            title: "Scribe transcription API",
            version: "0.1.0",
            description:
              "Timed transcripts, summaries and mind maps from audio and video. Errors are JSON with `message`; 422 adds `errors` keyed by field.",
          },
          components: { securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "Access token or API key" } } },
        },
      }),
    )
    .use(healthRoutes);
  for (const feature of features) app = app.use(feature);
  return app;
}
