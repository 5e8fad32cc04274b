import type { Elysia } from "elysia";
import { requestContext } from "./correlation.ts";
import { logger } from "../logging/logger.ts";
import { isOpenAiRequest, openAiErrorJson } from "./openai-errors.ts";
import { unmatchedRoute, type RequestObserver } from "./request-observer.ts";
import { withBaselineHeaders } from "./page-headers.ts";
import { compressedAnswer } from "./compressed-answers.ts";
import { sentKnownAnswer } from "./known-answers.ts";
import { pacedAnswer } from "./answer-pacing.ts";

const log = logger("http");

/** Elysia's handling of one request, as the last resort guards it: whatever it gives back is passed on. */
type Handle = (request: Request) => unknown;

const internalError = "Internal server error.";

/** Whatever was thrown, as text for the log, even a value whose own methods throw. */
function described(error: unknown): { message: string; stack?: string } {
  try {
    if (error instanceof Error) return { message: `${error.name}: ${error.message}`, stack: error.stack };
    return { message: String(error) };
  } catch {
    return { message: "a thrown value that cannot be described" };
  }
}

/** The error-level line of an answer no handler made, with the request's id; never throws. */
function logFailure(error: unknown, requestId: string | null): void {
  try {
    log.error({ reqId: requestId, err: error }, "unexpected error outside the error handler: answered 500");
  } catch {
    // pino could not serialize what was thrown (a Proxy whose traps throw): its description instead.
    try {
      log.error({ reqId: requestId, err: described(error) }, "unexpected error outside the error handler: answered 500");
    } catch {
      // Nothing left to do: the answer still goes out.
    }
  }
}

/**
 * The spec's JSON 500 (OpenAI's shape on `/v1`), with the request's id, for a failure that escaped the error
 * handler. `request` is null where Bun itself reports one (server-options.ts), which names no request.
 */
export function lastResortAnswer(error: unknown, request: Request | null = null): Response {
  const requestId = request === null ? null : requestContext(request).id;
  logFailure(error, requestId);
  const headers: Record<string, string> = { "x-content-type-options": "nosniff", ...(requestId !== null && { "x-request-id": requestId }) };
  let openAi = false;
  try {
    openAi = request !== null && isOpenAiRequest(request);
  } catch {
    // A URL that cannot be read: the API's own shape.
  }
  if (openAi) return openAiErrorJson(500, internalError, { headers });
  return new Response(JSON.stringify({ message: internalError }), { status: 500, headers: { ...headers, "content-type": "application/json" } });
}

/** A wrapper of Elysia's handling (`wrap`): Elysia types the handler it passes in loosely, as a function of unknown arguments. */
type Wrapper = Parameters<Elysia["wrap"]>[0];

/**
 * The outermost layer of every answer (Elysia's `wrap`, around its whole handling, hooks and error handler
 * included). An exception that escapes Elysia (one thrown inside the error handler, which once let Bun answer
 * with its development page: stack frames, paths, source lines) becomes the spec's JSON 500 with the
 * request's id, an error-level line naming it, and a request line and metrics through `observers` (Elysia's
 * after-response hook does not run for it). Every answer gets the baseline headers (page-headers.ts), and the
 * API's JSON and text answers are compressed as the client accepts (compressed-answers.ts), unless `compression` is off.
 * A burst of answers in one turn of the event loop goes out a few per turn (answer-pacing.ts).
 */
export function lastResort(observers: readonly RequestObserver[], { compression = true }: { compression?: boolean } = {}): Wrapper {
  const failed = (error: unknown, request: Request): Response => {
    const response = lastResortAnswer(error, request);
    const context = requestContext(request);
    for (const observe of observers) {
      try {
        observe({
          requestId: context.id,
          method: request.method,
          route: unmatchedRoute,
          status: 500,
          durationSeconds: (performance.now() - context.startedAt) / 1000,
          userId: context.userId,
        });
      } catch {
        // An observer's failure does not change the answer.
      }
    }
    return response;
  };
  // Not a Response at all: passed on as it is, and Bun's own `error` handler (server-options.ts) answers for it.
  const finished = (answer: unknown, request: Request): unknown => {
    let response: Response;
    try {
      if (!(answer instanceof Response)) return answer;
      response = withBaselineHeaders(answer);
    } catch {
      // Its headers could be neither set nor copied: it goes out as it is.
      return answer;
    }
    try {
      // A kept JSON answer is finished without being inspected (known-answers.ts).
      const known = sentKnownAnswer(response, request, compression);
      if (known !== null) return pacedAnswer(known);
      if (!compression) return pacedAnswer(response);
      const sent = compressedAnswer(response, request);
      return sent instanceof Promise ? sent.then(pacedAnswer, (error: unknown) => failed(error, request)) : pacedAnswer(sent);
    } catch (error) {
      return failed(error, request);
    }
  };
  // Elysia calls this for each request with its own handler; one guarded handler per handler, made once.
  const guarded = new WeakMap<object, Handle>();
  return (handle) => {
    let guard = guarded.get(handle);
    if (!guard) {
      guard = (request) => {
        try {
          const answer: unknown = handle(request);
          if (answer instanceof Promise)
            return answer.then(
              (response: unknown) => finished(response, request),
              (error: unknown) => failed(error, request),
            );
          return finished(answer, request);
        } catch (error) {
          return failed(error, request);
        }
      };
      guarded.set(handle, guard);
    }
    return guard;
  };
}

/** Puts `lastResort` around an app's handling of every request. */
export function guardAnswers<App extends { wrap(wrapper: Wrapper): App }>(
  app: App,
  observers: readonly RequestObserver[],
  options: { compression?: boolean } = {},
): App {
  return app.wrap(lastResort(observers, options));
}
