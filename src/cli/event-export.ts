import { createHmac } from "node:crypto";
import { streamCategory, type RecordedEvent } from "../core/event.ts";
import { userIdOf } from "../accounts/events.ts";
import { taskIdOf } from "../tasks/events.ts";

/**
 * What `bun run events` prints for analysts. By default nothing in it lets anyone sign in or tells who a
 * person is: secrets (password, token and key hashes) are replaced by `[redacted]`, and e-mail addresses
 * and social-login subjects by stable pseudonyms (the same address gives the same pseudonym across
 * exports of one installation, so analysts can still count and join, but cannot read it back).
 */
export type ExportOptions = {
  /** Operators only: print secrets and addresses as stored. */
  includeSecrets: boolean;
  /** The installation's signing secret keys the pseudonyms, so they cannot be reversed by guessing addresses. */
  pseudonymKey: string;
};

const redacted = "[redacted]";
const secretKey = /(hash|secret|signature|password)$/i;
const personalKeys = new Set(["email", "previousEmail", "subject"]);

function pseudonym(value: string, key: string): string {
  return `pseudonym:${createHmac("sha256", key).update(value.trim().toLowerCase()).digest("hex").slice(0, 16)}`;
}

function scrub(value: unknown, options: ExportOptions): unknown {
  if (Array.isArray(value)) return value.map((item) => scrub(item, options));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (secretKey.test(key) && field !== null) out[key] = redacted;
    else if (personalKeys.has(key) && typeof field === "string") out[key] = pseudonym(field, options.pseudonymKey);
    else out[key] = scrub(field, options);
  }
  return out;
}

/** The event as exported: its data and metadata with secrets and addresses taken out (unless included). */
export function exportedEvent(event: RecordedEvent, options: ExportOptions): RecordedEvent {
  return options.includeSecrets ? event : { ...event, data: scrub(event.data, options) as RecordedEvent["data"] };
}

/**
 * One line of the NDJSON export: `{position, streamName, revision, id, type, time, data, metadata}`, and `erased`: the
 * paths of the personal fields in `data` whose key was destroyed (they read "[erased]", [] or null), when there are any.
 */
export function eventLine(event: RecordedEvent, erased: readonly string[] = []): string {
  const { position, streamName, revision, id, type, time, data, metadata } = event;
  return JSON.stringify({ position, streamName, revision, id, type, time, data, metadata, ...(erased.length > 0 ? { erased } : {}) });
}

/** The status a task is in after this event, for `task_status` in the flat form; null for events that do not move it. */
function taskStatusAfter(event: RecordedEvent): string | null {
  const data = (event.data ?? {}) as Record<string, unknown>;
  switch (event.type) {
    case "TaskCreated":
      return "pending";
    case "MediaFetchStarted":
      return "waiting";
    case "MediaFetched":
      return "pending";
    case "TranscriptionStarted":
      return "scribing";
    case "TaskRetried":
      return typeof data.status === "string" ? data.status : null;
    case "TaskFinished":
      return "finished";
    case "TaskFailed":
      return "failed";
    case "TaskDeleted":
      return "deleted";
    default:
      return null;
  }
}

const integer = (value: unknown) => (typeof value === "number" && Number.isInteger(value) ? value : null);
const text = (value: unknown) => (typeof value === "string" ? value : null);

/**
 * The `--flat` form: every line has the same columns with one type each (null when an event has no
 * such fact), so DuckDB's `read_ndjson` loads it into typed columns. `data` keeps the whole (scrubbed)
 * data as JSON text for anything the columns leave out; `erased` lists its erased fields ([] when none).
 */
export function flatLine(event: RecordedEvent, erased: readonly string[] = []): string {
  const data = (event.data ?? {}) as Record<string, unknown>;
  return JSON.stringify({
    position: event.position,
    time: event.time,
    type: event.type,
    stream: event.streamName,
    category: streamCategory(event.streamName),
    revision: event.revision,
    event_id: event.id,
    user_id: integer(data.userId) ?? userIdOf(event),
    task_id: integer(data.taskId) ?? taskIdOf(event),
    task_status: taskStatusAfter(event),
    attempt: integer(data.attempt),
    seconds: integer(data.seconds),
    duration: integer(data.duration),
    cost: integer(data.cost),
    plan: text(data.plan),
    format: text(data.format),
    reason: text(data.reason),
    actor_user_id: event.metadata.userId,
    actor_system: event.metadata.system,
    correlation_id: event.metadata.correlationId,
    causation_id: event.metadata.causationId,
    data: JSON.stringify(data),
    erased,
  });
}
