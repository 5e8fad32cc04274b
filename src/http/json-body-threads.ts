import { BackgroundThread } from "../core/background-thread.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import { logger } from "../logging/logger.ts";
import { parseJsonBody } from "./json-body.ts";
import type { BodyPlan } from "./body-plans.ts";

const log = logger("http");

/** A large body's text as it was read, and what its route's schema keeps of it (null: all of it). */
export type LargeBodyJob = { parts: string[]; plan: BodyPlan };
export type LargeBodyOutcome =
  | { text: string }
  | { empty: true }
  | { refused: { errors: Record<string, string[]>; message: string } }
  | { failed: { status: DomainError["status"]; message: string } }
  | { unparsable: string };

let parsedOffThread = 0;
/** How many bodies a thread has parsed in this process: how tests see that the main thread did not. */
export const bodiesParsedOffThread = () => parsedOffThread;

/** Enough for any HEAVY_WORK_AT_ONCE worth having: each large body holds a heavy-work slot while it is parsed. */
const mostThreads = 4;

/**
 * JSON bodies over the ordinary limit with members their route does not know, parsed on threads of their own
 * (bounded-body-parser.ts picks them). JSON.parse pays for every new member name and every new order of names: 17 MB
 * of 100,000 objects in new orders of 1,000 names (all json-shape.ts lets through) takes 120 ms to 1 s, and
 * before the shape rules 12 MB of a million different names held the event loop 0.65 to 3 s, `/api/health` p99
 * at a second. On a thread, that time is the thread's; the main thread gets back only what the route's schema
 * reads (body-plans.ts), as text with no name it does not know, which it parses in milliseconds.
 *
 * Threads start on first use and one more whenever all are busy, up to four. How many bodies are parsed at
 * once is bounded by the heavy-work slots their requests hold (request-limits.ts), and so is their memory.
 */
export class JsonBodyThreads {
  private readonly threads: { thread: BackgroundThread<LargeBodyJob, LargeBodyOutcome>; busy: number }[] = [];

  /** The body parsed as json-body.ts parses it, with what the plan leaves out taken out; undefined when it is blank. */
  async parse(parts: string[], plan: BodyPlan): Promise<unknown> {
    const slot = this.leastBusy();
    slot.busy++;
    let outcome: LargeBodyOutcome;
    try {
      outcome = await slot.thread.run({ parts, plan });
    } catch (error) {
      // The thread died or broke (it is started again for the next body): this body is parsed here rather than lost.
      log.warn({ err: error }, "a large JSON body could not be parsed on its thread: parsed on the main thread");
      const text = parts.join("");
      return text.trim() === "" ? undefined : parseJsonBody(text);
    } finally {
      slot.busy--;
    }
    parsedOffThread++;
    if ("text" in outcome) return parseJsonBody(outcome.text);
    if ("empty" in outcome) return undefined;
    if ("refused" in outcome) throw new ValidationFailedError(outcome.refused.errors, outcome.refused.message);
    if ("failed" in outcome) throw new DomainError(outcome.failed.status, outcome.failed.message);
    // As JSON.parse would have thrown here: the error handler's 400 for a body that is not JSON.
    throw new SyntaxError(outcome.unparsable);
  }

  private leastBusy() {
    const idle = this.threads.find((slot) => slot.busy === 0);
    if (idle) return idle;
    if (this.threads.length < mostThreads) {
      const slot = {
        thread: new BackgroundThread<LargeBodyJob, LargeBodyOutcome>(new URL("./json-body-thread.ts", import.meta.url), "JSON body parsing"),
        busy: 0,
      };
      this.threads.push(slot);
      return slot;
    }
    return this.threads.reduce((a, b) => (b.busy < a.busy ? b : a));
  }
}
