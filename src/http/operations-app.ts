import { Elysia, type AnyElysia } from "elysia";
import { errorHandler } from "./error-handler.ts";
import { healthRoutes } from "../health/routes.ts";
import { requestObserver, type RequestObserver } from "./request-observer.ts";
import { guardAnswers } from "./last-resort.ts";

/**
 * What a process without the api role serves on its port: health, readiness and metrics, for compose's
 * healthchecks and Prometheus. No API, no documents, no request bodies.
 */
export function createOperationsApp(features: AnyElysia[], observers: readonly RequestObserver[], options: { compression?: boolean } = {}) {
  let app = new Elysia().use(requestObserver(observers)).use(errorHandler).use(healthRoutes);
  // The features are any plugins (readiness, metrics): their routes are there at run time, not in the app's type.
  for (const feature of features) app = app.use(feature);
  return guardAnswers(app, observers, options);
}
