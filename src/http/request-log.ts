import { flatLine, logger, type Logger } from "../logging/logger.ts";
import type { RequestObserver } from "./request-observer.ts";

/** Routes that probes and scrapers call every few seconds: their lines are at debug, so they do not drown the others at info. */
const probeRoutes = new Set(["/api/health", "/api/ready", "/metrics"]);

/**
 * One line per answered request: `reqId` (also the X-Request-Id header and the correlationId of the events it
 * appends), `method`, `route` (the template, never the path with its ids or query), `status`, `durationMs` and
 * `userId` (null when anonymous).
 */
export function requestLog(log: Logger = logger("http")): RequestObserver {
  return (observation) => {
    const line = {
      reqId: observation.requestId,
      method: observation.method,
      route: observation.route,
      status: observation.status,
      durationMs: Math.round(observation.durationSeconds * 10_000) / 10,
      userId: observation.userId,
    };
    flatLine(log, probeRoutes.has(observation.route) ? "debug" : "info", line, "request");
  };
}
