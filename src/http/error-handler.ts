import { Elysia, type ValidationError } from "elysia";
import { DomainError, TooManyRequestsError, ValidationFailedError } from "../core/errors.ts";
import { EventTooLargeError } from "../eventstore/event-size.ts";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { fieldName, messageFor } from "./validation-messages.ts";
import { decodePathOf } from "./decode-path.ts";
import { releaseHeavyWork } from "./heavy-work-slots.ts";
import { correlationIdOf } from "./correlation.ts";
import { logger } from "../logging/logger.ts";
import { OpenAiError, inOpenAiShape, isOpenAiRequest } from "./openai-errors.ts";

const log = logger("http");

/** The one error shape of the API (spec section 7): `message`, plus `errors` keyed by field for 422. */
export type ErrorBody = { message: string; errors?: Record<string, string[]> };

/** A response in the API's one error shape. */
export function errorJson(status: number, body: ErrorBody, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });
}

/**
 * Elysia's numeric types are unions (a number, or a numeric string from a query or form), so the
 * useful complaint ("must be at least 0") sits inside the union's first branch.
 */
function innermost(issue: ValueError): ValueError {
  if (issue.type !== ValueErrorType.Union) return issue;
  const candidates: ValueError[] = [];
  for (const branch of issue.errors ?? []) {
    const first = branch.First();
    if (first) candidates.push(innermost(first));
  }
  const rank = (e: ValueError) => (typeMismatch.has(e.type) ? (e.type === ValueErrorType.String ? 2 : 1) : 0);
  candidates.sort((a, b) => rank(a) - rank(b));
  return candidates[0] ?? issue;
}

const typeMismatch = new Set([
  ValueErrorType.String,
  ValueErrorType.StringPattern,
  ValueErrorType.StringFormat,
  ValueErrorType.Number,
  ValueErrorType.Integer,
  ValueErrorType.Boolean,
  ValueErrorType.Object,
  ValueErrorType.Array,
  ValueErrorType.Null,
  ValueErrorType.Literal,
]);

/** As many as Elysia's own `error.all` lists. */
const mostIssues = 64;

/**
 * The failures TypeBox finds, read from the validator rather than through `error.all`: Elysia's list puts
 * each rejected value into a template string for its summary, which throws for a value that cannot become
 * a string. Elysia's other validators (Standard Schema) still go through `all`.
 */
function issuesOf(error: Readonly<ValidationError>): Iterable<ValueError | { summary: string }> {
  const validator = error.validator as { Errors?: (value: unknown) => Iterable<ValueError> } | null;
  if (typeof validator?.Errors !== "function") return error.all;
  return Iterator.from(validator.Errors(error.value)).take(mostIssues);
}

/** 422 with every failing field, so a form can show all problems at once. */
export function validationResponse(error: Readonly<ValidationError>): Response {
  // Keyed by what the client sent: a Map, since on a plain object a field named `constructor` or
  // `__proto__` found Object's own member (`errors.constructor ??= []` kept the function, and threw).
  const errors = new Map<string, string[]>();
  const required = new Set<string>();
  // A bound checked while decoding a query's, path's or form's text: its issues' paths start at the field.
  const at = decodePathOf(error) ?? "";
  for (const issue of issuesOf(error)) {
    if (!("path" in issue)) continue;
    // A field the schema does not define is dropped from a valid body (Elysia's normalize), so it is never an
    // error: naming it only when something else failed refused `{"x":1}` beside a missing field, not beside a
    // valid one, and made a built-in name (`toString`) look ignored where other unknown keys were refused.
    if (issue.type === ValueErrorType.ObjectAdditionalProperties) continue;
    const field = fieldName(at + issue.path, error.type);
    let list = errors.get(field);
    if (!list) errors.set(field, (list = []));
    // A missing field also fails its type check; only "required" helps the client.
    if (issue.type === ValueErrorType.ObjectRequiredProperty) list.length = 0;
    else if (required.has(field)) continue;
    const message = messageFor(innermost(issue), field);
    if (!list.includes(message)) list.push(message);
    if (issue.type === ValueErrorType.ObjectRequiredProperty) required.add(field);
  }
  if (errors.size === 0) {
    const field = fieldName(at, error.type);
    errors.set(field, [`The ${field} is invalid.`]);
  }
  const messages = [...errors.values()].flat();
  const more = messages.length - 1;
  const message = more > 0 ? `${messages[0]} (and ${more} more error${more > 1 ? "s" : ""})` : messages[0]!;
  // fromEntries defines each key as the object's own, `__proto__` included, so the JSON lists every field.
  return errorJson(422, { message, errors: Object.fromEntries(errors) });
}

/** `requestId`: the request's id, so the error's log line can be found beside its request line. */
export function errorResponse(error: unknown, requestId: string | null = null): Response {
  if (error instanceof ValidationFailedError) return errorJson(422, { message: error.message, errors: error.errors });
  if (error instanceof TooManyRequestsError) {
    const headers: Record<string, string> = error.retryAfterSeconds === undefined ? {} : { "retry-after": String(error.retryAfterSeconds) };
    return errorJson(429, { message: error.message }, headers);
  }
  if (error instanceof DomainError) return errorJson(error.status, { message: error.message });
  if (error instanceof EventTooLargeError) {
    // The request's limits should have stopped this earlier: log it, and answer what it is.
    log.error({ reqId: requestId, err: error }, "a change too large to record got past the request limits");
    return errorJson(413, { message: "The change is too large to record; send less at once." });
  }
  log.error({ reqId: requestId, err: error }, "unexpected error: answered 500");
  return errorJson(500, { message: "Internal server error." });
}

/** Maps every failure, from routing to domain rules, to the one error shape (OpenAI's on its compatible `/v1` routes). */
export const errorHandler = new Elysia({ name: "error-handler" }).onError({ as: "global" }, ({ code, error, request }) => {
  // A request that fails keeps no heavy-work slot (a large body refused by validation, or cut off).
  releaseHeavyWork(request);
  const answer = (): Response => {
    switch (code) {
      case "VALIDATION":
        return validationResponse(error);
      case "NOT_FOUND":
        return errorJson(404, { message: "Not found." });
      case "PARSE":
        // Our body parser (bounded-body-parser.ts) refused the body: its reason, not a generic 400.
        if ((error as Error).cause instanceof DomainError) return errorResponse((error as Error).cause);
        return errorJson(400, { message: "The request body could not be parsed; send valid JSON (or the form encoding the endpoint takes)." });
      case "INVALID_COOKIE_SIGNATURE":
        return errorJson(401, { message: "Unauthenticated." });
      default:
        return errorResponse(error, correlationIdOf(request));
    }
  };
  if (!isOpenAiRequest(request)) return answer();
  return error instanceof OpenAiError ? error.response() : inOpenAiShape(answer());
});
