/**
 * A client's frame read into one of the events of client-events.ts, or the reason it is not one, as the `error` event
 * that answers it says it. Nothing a client sends ends the session: every refusal is an answer, and the session goes on.
 * The text is bounded before it is parsed (size, then shape), so a hostile frame costs its bytes and no more.
 */
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { ValueErrorType } from "@sinclair/typebox/errors";
import type { TSchema } from "@sinclair/typebox";
import { JsonShapeScanner } from "../http/json-shape.ts";
import { parseJsonBody } from "../http/json-body.ts";
import { ValidationFailedError } from "../core/errors.ts";
import { fieldName, messageFor } from "../http/validation-messages.ts";
import { clientEventSchemas, clientEventTypes, type ClientEvent, type ClientEventType } from "./client-events.ts";

/** What an `error` event says about a client's event (OpenAI's RealtimeError, less its type, always invalid_request_error). */
export type EventProblem = { code: string; message: string; param: string | null; eventId: string | null };

export type ReadEvent = { ok: true; event: ClientEvent } | { ok: false; problem: EventProblem };

/** The largest event read, in bytes of text: an append of about 16 s of 24 kHz audio. Larger ones are refused unread. */
export const maxEventBytes = 1024 * 1024;

/** Events are small objects: bounds far above any valid event's and far below what costs anything to scan. */
const eventShape = { depth: 6, arrayItems: 8, objectMembers: 16, memberNames: 48, values: 128 };

const checks = Object.fromEntries(Object.entries(clientEventSchemas).map(([type, schema]) => [type, TypeCompiler.Compile(schema as TSchema)])) as Record<
  ClientEventType,
  TypeCheck<TSchema>
>;

const isEventType = (type: unknown): type is ClientEventType => typeof type === "string" && (clientEventTypes as string[]).includes(type);

const problem = (code: string, message: string, param: string | null = null, eventId: string | null = null): ReadEvent => ({
  ok: false,
  problem: { code, message, param, eventId },
});

/** The client's event_id, read without copying the object (a `__proto__` member stays an own property). */
function eventIdOf(value: unknown): string | null {
  if (typeof value !== "object" || value === null || !Object.hasOwn(value, "event_id")) return null;
  const id: unknown = (value as Record<string, unknown>).event_id;
  return typeof id === "string" ? id.slice(0, 128) : null;
}

/** Reads one frame: text holding one JSON event. A binary frame, or text that is not an accepted event, is a problem. */
export function readClientEvent(frame: string | Uint8Array): ReadEvent {
  if (typeof frame !== "string") {
    return problem("invalid_event", "Events are JSON text frames; audio goes base64-encoded in input_audio_buffer.append, not in binary frames.");
  }
  if (frame.length > maxEventBytes) {
    return problem("event_too_large", `The event is ${frame.length} characters long; at most ${maxEventBytes} are read. Send audio in smaller appends.`);
  }
  const violation = new JsonShapeScanner(eventShape).feed(frame);
  if (violation !== null) return problem("invalid_event", violation.message.replace("The request body", "The event"));
  let value: unknown;
  try {
    value = parseJsonBody(frame);
  } catch (error) {
    if (error instanceof ValidationFailedError) {
      return problem("unknown_parameter", error.message, fieldName(Object.keys(error.errors)[0] ?? "", "event"), eventIdOf(JSON.parse(frame)));
    }
    return problem("invalid_json", "The event is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return problem("invalid_event", "The event must be a JSON object.");
  const fields = value as Record<string, unknown>;
  const eventId = eventIdOf(fields);
  if (!isEventType(fields.type)) {
    const named = typeof fields.type === "string" ? `The event type ${JSON.stringify(fields.type.slice(0, 64))} is not offered` : "The event has no type";
    return problem("invalid_value", `${named}; a transcription session takes ${clientEventTypes.join(", ")}.`, "type", eventId);
  }
  const check = checks[fields.type];
  // The compiled check first: the errors' iterator walks the schema on every call, valid events too.
  const error = check.Check(value) ? undefined : check.Errors(value).First();
  if (error !== undefined) {
    const param = fieldName(error.path, "event");
    const code =
      error.type === ValueErrorType.ObjectRequiredProperty
        ? "missing_required_parameter"
        : error.type === ValueErrorType.ObjectAdditionalProperties
          ? "unknown_parameter"
          : "invalid_value";
    return problem(code, messageFor(error, param), param, eventId);
  }
  return { ok: true, event: value as ClientEvent };
}
