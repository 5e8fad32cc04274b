import { Elysia } from "elysia";
import { requestContext } from "./correlation.ts";

/** One request as operators see it: in its log line and in the HTTP metrics. */
export type RequestObservation = {
  requestId: string;
  method: string;
  /** The route's template (`/api/tasks/:id`), never the raw path: ids would make every path a new series. */
  route: string;
  status: number;
  durationSeconds: number;
  /** The authenticated user, when the request had a valid credential. */
  userId: number | null;
};

export type RequestObserver = (observation: RequestObservation) => void;

/** What a request that matched no route is counted under. */
export const unmatchedRoute = "(unmatched)";

type AfterResponse = { request: Request; route?: string; code?: unknown; set: { status?: number | string }; responseValue?: unknown };

function statusOf({ responseValue, code, set }: Omit<AfterResponse, "request" | "route">): number {
  if (responseValue instanceof Response) return responseValue.status;
  if (code === "NOT_FOUND") return 404;
  const status = Number(set.status ?? 200);
  return Number.isInteger(status) ? status : 200;
}

/**
 * Stamps each request as it arrives (its id goes back as X-Request-Id) and, once it is answered, tells each
 * observer what happened. One hook for logs and metrics alike, so requests pay for one.
 */
export function requestObserver(observers: readonly RequestObserver[]) {
  return (
    new Elysia({ name: "request-observer" })
      .onRequest(({ request, set }) => {
        set.headers["x-request-id"] = requestContext(request).id;
      })
      // The context's members are named, not the context passed on whole: Elysia reads a hook's source to learn
      // what a route uses, and a context handed to a function counts as using everything, cookies included, which
      // parsed the Cookie header of every request and copied every Response it answered with (about 3 µs a request).
      .onAfterResponse({ as: "global" }, ({ request, route, code, set, responseValue }: AfterResponse) => {
        const stamped = requestContext(request);
        const observation: RequestObservation = {
          requestId: stamped.id,
          method: request.method,
          route: route || unmatchedRoute,
          status: statusOf({ responseValue, code, set }),
          durationSeconds: (performance.now() - stamped.startedAt) / 1000,
          userId: stamped.userId,
        };
        for (const observe of observers) observe(observation);
      })
  );
}
