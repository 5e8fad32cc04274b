import { BackgroundThread } from "../core/background-thread.ts";
import { DomainError, ValidationFailedError } from "../core/errors.ts";
import { logger } from "../logging/logger.ts";
import { parseJsonBody } from "./json-body.ts";
import type { BodyPlan } from "./body-plans.ts";
import type { MemberPreparer, PreparedMember } from "./prepared-members.ts";

const log = logger("http");

/** A large body as its route gets it, and the member the thread made ready for the route (prepared-members.ts), if any. */
export type ParsedLargeBody = { body: unknown; prepared: PreparedMember | null };

/**
 * A large body's bytes as they were read (UTF-8, checked already), what its route's schema keeps of it, and the member
 * its route makes ready on the thread (prepared-members.ts) with, when the request has an Idempotency-Key, what to
 * fingerprint it as. Bytes, handed over (handOver): posting 24 MiB as the text it was read as copied it, and held the
 * event loop 25-65 ms per body (scratch measurement); handing over the chunks' buffers takes well under a millisecond.
 */
export type LargeBodyJob = { body: readonly Uint8Array[]; plan: BodyPlan; preparer?: MemberPreparer; fingerprint?: { method: string; path: string } };
export type LargeBodyOutcome =
  | { text: string }
  | { rest: string; prepared: unknown; fingerprint: string | null; transfer: ArrayBuffer[] }
  | { empty: true }
  | { refused: { errors: Record<string, string[]>; message: string } }
  | { failed: { status: DomainError["status"]; message: string } }
  | { unparsable: string };

let parsedOffThread = 0;
let preparedOffThread = 0;
/** How many bodies a thread has parsed in this process: how tests see that the main thread did not. */
export const bodiesParsedOffThread = () => parsedOffThread;
/** How many of them had a member made ready there (prepared-members.ts), which the main thread then never parsed. */
export const membersPreparedOffThread = () => preparedOffThread;

/**
 * The chunks, to post to a thread: handed over without a copy (`transfer`) when each owns its buffer alone, as the
 * chunks of a request's body do here (64 KiB each); otherwise copied by the post, and kept here too.
 */
function handOver(chunks: readonly Uint8Array[]): { body: readonly Uint8Array[]; transfer: ArrayBuffer[] } {
  const buffers = new Set<ArrayBufferLike>();
  for (const chunk of chunks) {
    const own = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength && chunk.buffer instanceof ArrayBuffer;
    if (!own || buffers.has(chunk.buffer)) return { body: chunks, transfer: [] };
    buffers.add(chunk.buffer);
  }
  return { body: chunks, transfer: [...buffers] as ArrayBuffer[] };
}

/** Enough for any HEAVY_WORK_AT_ONCE worth having: each large body holds a heavy-work slot while it is parsed. */
const mostThreads = 4;

/** The body a thread gave back, or the refusal it found, as the main thread's parse would have answered it. */
function bodyOf(outcome: Exclude<LargeBodyOutcome, { rest: string }>): unknown {
  if ("text" in outcome) return parseJsonBody(outcome.text);
  if ("empty" in outcome) return undefined;
  if ("refused" in outcome) throw new ValidationFailedError(outcome.refused.errors, outcome.refused.message);
  if ("failed" in outcome) throw new DomainError(outcome.failed.status, outcome.failed.message);
  // As JSON.parse would have thrown here: the error handler's 400 for a body that is not JSON.
  throw new SyntaxError(outcome.unparsable);
}

/**
 * JSON bodies over the ordinary limit with members their route does not know, parsed on threads of their own
 * (bounded-body-parser.ts picks them). JSON.parse pays for every new member name and every new order of names: 17 MB
 * of 100,000 objects in new orders of 1,000 names (all json-shape.ts lets through) takes 120 ms to 1 s, and
 * before the shape rules 12 MB of a million different names held the event loop 0.65 to 3 s, `/api/health` p99
 * at a second. On a thread, that time is the thread's; the main thread gets back only what the route's schema
 * reads (body-plans.ts), as text with no name it does not know, which it parses in milliseconds. Every large body to a
 * route that makes a member ready off the main thread comes here too (prepared-members.ts): a transcript to create or
 * update a task, whose segments come back as the bytes to store (a body without them, parsed again there: a PATCH
 * of only a long `text`).
 *
 * Threads start on first use and one more whenever all are busy, up to four. How many bodies are parsed at
 * once is bounded by the heavy-work slots their requests hold (request-limits.ts), and so is their memory.
 */
export class JsonBodyThreads {
  private readonly threads: { thread: BackgroundThread<LargeBodyJob, LargeBodyOutcome>; busy: number }[] = [];

  /**
   * The body parsed as json-body.ts parses it, with what the plan leaves out taken out; undefined when it is blank.
   * With a `preparer`, the member it names may come back made ready (`prepared`), and the body without it.
   */
  async parse(chunks: readonly Uint8Array[], plan: BodyPlan, preparing: Pick<LargeBodyJob, "preparer" | "fingerprint"> = {}): Promise<ParsedLargeBody> {
    const slot = this.leastBusy();
    slot.busy++;
    let outcome: LargeBodyOutcome;
    const handedOver = handOver(chunks);
    try {
      outcome = await slot.thread.run({ body: handedOver.body, plan, ...preparing }, handedOver.transfer);
    } catch (error) {
      // Handed over, the bytes went with the thread: the request fails (500) rather than be parsed from nothing.
      if (handedOver.transfer.length > 0) throw error;
      // The thread died or broke (it is started again for the next body): this body is parsed here rather than lost.
      log.warn({ err: error }, "a large JSON body could not be parsed on its thread: parsed on the main thread");
      const text = new TextDecoder().decode(Buffer.concat(handedOver.body));
      return { body: text.trim() === "" ? undefined : parseJsonBody(text), prepared: null };
    } finally {
      slot.busy--;
    }
    parsedOffThread++;
    if ("rest" in outcome) {
      preparedOffThread++;
      const { member } = preparing.preparer!;
      return { body: parseJsonBody(outcome.rest), prepared: { member, value: outcome.prepared, fingerprint: outcome.fingerprint } };
    }
    return { body: bodyOf(outcome), prepared: null };
  }

  private leastBusy() {
    const idle = this.threads.find((slot) => slot.busy === 0);
    if (idle) return idle;
    if (this.threads.length < mostThreads) {
      const slot = {
        thread: new BackgroundThread<LargeBodyJob, LargeBodyOutcome>(new URL("./json-body-thread.ts", import.meta.url), "JSON body parsing", {
          smol: true,
        }),
        busy: 0,
      };
      this.threads.push(slot);
      return slot;
    }
    return this.threads.reduce((a, b) => (b.busy < a.busy ? b : a));
  }
}
