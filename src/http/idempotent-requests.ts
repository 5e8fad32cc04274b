import type { Context } from "elysia";
import { ConflictError, ValidationFailedError } from "../core/errors.ts";
import { requestContext } from "./correlation.ts";
import { releaseHeavyWork } from "./heavy-work-slots.ts";
import { preparedFingerprintOf } from "./prepared-members.ts";
import { idempotencyKeyHeader, parseIdempotencyKey, requestFingerprint } from "./idempotency-key.ts";
import type { IdempotencyKeys, Reservation, StoredAnswer } from "./idempotency-store.ts";

/** Said on every replayed answer, as Stripe and the draft's examples do. */
export const replayedHeader = "idempotent-replayed";

/** The headers of an answer that are part of it (what the body is, where it is); the rest belong to each request. */
const keptHeaders = ["content-type", "location"];

/**
 * The answers kept and replayed: what processing the request decided, 2xx and 4xx alike (a 422 of the
 * domain, the 403 of plan and balance, the 429 of the 3-task limit), as Stripe does. Not a 409: ours say
 * "repeat in a moment" (a parallel complete of the same upload), so the key is freed for that repeat; not
 * a 5xx (our failure): the key is freed and the retry is processed afresh. What happens before processing
 * (401, the rate limit's 429, the body's 400/413/422) never reaches the key at all.
 */
const kept = (status: number) => status >= 200 && status < 500 && status !== 409;

type Pending = Reservation & { settled: boolean };

/** The requests with an `Idempotency-Key` in flight in this process: each key's reservation, until its answer is kept. */
export class IdempotentRequests {
  private readonly pending = new WeakMap<Request, Pending>();

  constructor(private readonly keys: IdempotencyKeys) {}

  /**
   * Once the request is authenticated and its body valid: reserves (user, key), or answers a repeat with the kept
   * answer, a repeat with another body 422, a repeat while the first is in flight 409. Without the header, nothing.
   */
  async reserve({ request, body, path }: { request: Request; body: unknown; path: string }): Promise<Response | undefined> {
    const header = request.headers.get(idempotencyKeyHeader);
    const userId = requestContext(request).userId;
    if (header === null || userId === null) return;
    const parsed = parseIdempotencyKey(header);
    if ("problem" in parsed) throw new ValidationFailedError({ [idempotencyKeyHeader]: [parsed.problem] });
    // A body whose member was made ready on a thread (prepared-members.ts) was fingerprinted there, whole.
    const fingerprint = preparedFingerprintOf(request) ?? requestFingerprint(request.method, path, body);
    const outcome = await this.keys.reserve(userId, parsed.key, fingerprint);
    switch (outcome.kind) {
      case "reserved":
        this.pending.set(request, { ...outcome.reservation, settled: false });
        return;
      case "replay":
        // The handler does not run: what its route would give back at its end is given back here.
        releaseHeavyWork(request);
        return new Response(outcome.answer.body, { status: outcome.answer.status, headers: { ...outcome.answer.headers, [replayedHeader]: "true" } });
      case "in_flight":
        throw new ConflictError(`A request with this ${idempotencyKeyHeader} is still being processed; repeat it in a moment.`);
      case "mismatch":
        throw new ValidationFailedError(
          { [idempotencyKeyHeader]: [`This ${idempotencyKeyHeader} was used with another request; send a new key for a new request.`] },
          `This ${idempotencyKeyHeader} was used with another request (another body or operation); send a new key for a new request.`,
        );
    }
  }

  /**
   * The answer of a reserved request, kept before it is sent (so a retry that follows at once finds it), or its key
   * freed when the answer is not one to keep. Runs on the handler's value, and again on each error answer.
   */
  async keep({ request, response, set }: { request: Request; response: unknown; set: Context["set"] }): Promise<Response | undefined> {
    if (response === undefined || !this.pending.has(request)) return;
    const reservation = this.settle(request);
    if (!reservation) return;
    if (response instanceof Response) {
      if (!kept(response.status)) {
        await this.keys.release(reservation);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of keptHeaders) {
        const value = response.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      return this.store(reservation, { status: response.status, headers, body: await response.text() });
    }
    const status = typeof set.status === "number" ? set.status : 200;
    if (!kept(status)) {
      await this.keys.release(reservation);
      return;
    }
    // The content types Bun gives these bodies when Elysia answers them (Response.json for a value).
    const text = typeof response === "string";
    const headers: Record<string, string> = { "content-type": text ? "text/plain;charset=utf-8" : "application/json;charset=utf-8" };
    const location = set.headers.location;
    if (typeof location === "string") headers.location = location;
    return this.store(reservation, { status, headers, body: text ? response : JSON.stringify(response) });
  }

  /** Whatever ended the request without an answer to keep (a failure in between): the key is freed. */
  async forget(request: Request): Promise<void> {
    const reservation = this.settle(request);
    this.pending.delete(request);
    if (reservation) await this.keys.release(reservation).catch(() => undefined);
  }

  private settle(request: Request): Pending | null {
    const reservation = this.pending.get(request);
    if (!reservation || reservation.settled) return null;
    reservation.settled = true;
    return reservation;
  }

  private async store(reservation: Pending, answer: StoredAnswer): Promise<Response> {
    try {
      await this.keys.complete(reservation, answer);
    } catch (error) {
      // Not kept: rather a retry processed afresh than a key that answers 409 until it is taken as abandoned.
      await this.keys.release(reservation).catch(() => undefined);
      throw error;
    }
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  }
}
