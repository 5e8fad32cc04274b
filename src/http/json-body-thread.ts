import { serveOnThread } from "../core/background-thread.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import { parseJsonBody } from "./json-body.ts";
import { prune } from "./body-plans.ts";
import { requestFingerprint } from "./idempotency-key.ts";
import { isPlainObject } from "../readmodels/filter.ts";
import type { PrepareMember } from "./prepared-members.ts";
import type { LargeBodyJob, LargeBodyOutcome } from "./json-body-threads.ts";

/**
 * The thread that parses large JSON bodies (json-body-threads.ts): the same parse as on the main thread
 * (json-body.ts, with its refusals), then the members the route's schema cannot use taken out, and the rest
 * handed back as JSON text; a member the route prepares here (prepared-members.ts) handed back made ready.
 */
async function parseHere({ body, plan, preparer, fingerprint }: LargeBodyJob): Promise<LargeBodyOutcome> {
  const decoder = new TextDecoder();
  let text = "";
  for (const chunk of body) text += decoder.decode(chunk, { stream: true });
  text += decoder.decode();
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
  const kept = prune(value, plan);
  if (preparer && isPlainObject(kept) && Object.hasOwn(kept, preparer.member)) {
    const { prepareMember } = (await import(preparer.script)) as { prepareMember: PrepareMember };
    const made = prepareMember(kept[preparer.member]);
    if (made) {
      // The fingerprint is of the body as the route's schema reads it, as the main thread makes it of any other body.
      const print = fingerprint ? requestFingerprint(fingerprint.method, fingerprint.path, kept) : null;
      delete kept[preparer.member];
      return { rest: JSON.stringify(kept), prepared: made.prepared, fingerprint: print, transfer: made.transfer };
    }
  }
  return { text: JSON.stringify(kept) };
}

serveOnThread<LargeBodyJob, LargeBodyOutcome>(parseHere, (outcome) => ("transfer" in outcome ? outcome.transfer : []));
