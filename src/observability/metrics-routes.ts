import { Elysia } from "elysia";
import { createHash, timingSafeEqual } from "node:crypto";
import { bearerSecret } from "../http/bearer.ts";
import { errorJson } from "../http/error-handler.ts";
import type { ServiceMetrics } from "./metrics.ts";

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * `GET /metrics` in Prometheus' text format, on every role's port. With METRICS_TOKEN set, only a scraper that
 * sends it as a bearer token gets an answer (compared in constant time); the rest get the API's 401.
 */
export function metricsRoutes(metrics: ServiceMetrics, token: string | null) {
  const expected = token === null ? null : digest(token);
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async ({ request }) => {
      if (expected) {
        const given = bearerSecret(request.headers.get("authorization"));
        if (given === null || !timingSafeEqual(digest(given), expected)) {
          return errorJson(401, { message: "Unauthenticated: /metrics needs the METRICS_TOKEN as a bearer token." }, { "www-authenticate": "Bearer" });
        }
      }
      return new Response(await metrics.text(), { headers: { "content-type": metrics.contentType } });
    },
    { detail: { hide: true } },
  );
}
