import { serveOnThread } from "../core/background-thread.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import { parseJsonBody } from "./json-body.ts";
import { prune } from "./body-plans.ts";
import type { LargeBodyJob, LargeBodyOutcome } from "./json-body-threads.ts";

/**
 * The thread that parses large JSON bodies (json-body-threads.ts): the same parse as on the main thread
 * (json-body.ts, with its refusals), then the members the route's schema cannot use taken out, and the rest
 * handed back as JSON text.
 */
function parseHere({ parts, plan }: LargeBodyJob): LargeBodyOutcome {
  const text = parts.join("");
  if (text.trim() === "") return { empty: true };
  let value: unknown;
  try {
    value = parseJsonBody(text);
  } catch (error) {
    if (error instanceof ValidationFailedError) return { refused: { errors: error.errors, message: error.message } };
    if (error instanceof DomainError) return { failed: { status: error.status, message: error.message } };
    if (error instanceof SyntaxError) return { unparsable: error.message };
    throw error;
  }
  // What was parsed is garbage once this job is answered: collected before the next one piles up on it.
  setTimeout(() => Bun.gc(true), 0);
  return { text: JSON.stringify(prune(value, plan)) };
}

serveOnThread<LargeBodyJob, LargeBodyOutcome>(parseHere);
