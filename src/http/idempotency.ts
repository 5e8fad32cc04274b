import { Elysia } from "elysia";
import { ConflictError, ValidationFailedError } from "../core/errors.ts";
import { requestContext } from "./correlation.ts";
import { releaseHeavyWork } from "./heavy-work-slots.ts";
import { idempotencyKeyHeader, maxIdempotencyKeyLength, parseIdempotencyKey, requestFingerprint } from "./idempotency-key.ts";
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

/** The OpenAPI description of the header, on every operation that takes it. */
export const idempotencyKeyParameter = {
  name: idempotencyKeyHeader,
  in: "header" as const,
  required: false,
  description: `Makes a retry safe (IETF draft-ietf-httpapi-idempotency-key-header): the same key with the same request, for the same user within 24 hours, answers the first answer again (status, body and all, with \`Idempotent-Replayed: true\`) and changes nothing. The same key with another body (or on another operation) is 422; while the first request with it is still in flight, 409. Quoted as a Structured Field String (\`"8e03978e-…"\`) or bare; 1 to ${maxIdempotencyKeyLength} printable ASCII characters (422 otherwise).`,
  schema: { type: "string" as const, minLength: 1, maxLength: maxIdempotencyKeyLength + 2 },
};

const replayedResponseHeader = {
  "Idempotent-Replayed": {
    description: "`true` when this is the kept answer to an earlier request with the same Idempotency-Key.",
    schema: { type: "string" as const, enum: ["true"] },
  },
};

type Pending = Reservation & { settled: boolean };

/**
 * `Idempotency-Key` for the routes that ask for it with `idempotent: true` (after `.use(idempotency)`):
 * once the request is authenticated and its body valid, the key is reserved for (user, key) in the shared
 * store, and the answer is kept before it is sent; a repeat gets that answer back, a repeat with another
 * body 422, a repeat while the first is in flight 409. A request without the header is not touched.
 */
export function idempotency(keys: IdempotencyKeys) {
  const pending = new WeakMap<Request, Pending>();

  const settle = (request: Request): Pending | null => {
    const reservation = pending.get(request);
    if (!reservation || reservation.settled) return null;
    reservation.settled = true;
    return reservation;
  };

  const keep = async (reservation: Pending, answer: StoredAnswer): Promise<Response> => {
    try {
      await keys.complete(reservation, answer);
    } catch (error) {
      // Not kept: rather a retry processed afresh than a key that answers 409 until it is taken as abandoned.
      await keys.release(reservation).catch(() => undefined);
      throw error;
    }
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  };

  return new Elysia({ name: "idempotency" }).macro({
    idempotent: {
      detail: { parameters: [idempotencyKeyParameter], responseHeaders: replayedResponseHeader },
      async beforeHandle({ request, body, path }) {
        const header = request.headers.get(idempotencyKeyHeader);
        const userId = requestContext(request).userId;
        if (header === null || userId === null) return;
        const parsed = parseIdempotencyKey(header);
        if ("problem" in parsed) throw new ValidationFailedError({ [idempotencyKeyHeader]: [parsed.problem] });
        const outcome = await keys.reserve(userId, parsed.key, requestFingerprint(request.method, path, body));
        switch (outcome.kind) {
          case "reserved":
            pending.set(request, { ...outcome.reservation, settled: false });
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
      },
      // Runs on the handler's value (validated against the route's response schema), and again on each error
      // answer: the answer is kept here, before it is sent, so a retry that follows at once finds it.
      async mapResponse({ request, response, set }) {
        if (response === undefined || !pending.has(request)) return;
        if (response instanceof Response) {
          const reservation = settle(request);
          if (!reservation) return;
          if (!kept(response.status)) {
            await keys.release(reservation);
            return;
          }
          const headers: Record<string, string> = {};
          for (const name of keptHeaders) {
            const value = response.headers.get(name);
            if (value !== null) headers[name] = value;
          }
          return keep(reservation, { status: response.status, headers, body: await response.text() });
        }
        const reservation = settle(request);
        if (!reservation) return;
        const status = typeof set.status === "number" ? set.status : 200;
        if (!kept(status)) {
          await keys.release(reservation);
          return;
        }
        // The content types Bun gives these bodies when Elysia answers them (Response.json for a value).
        const text = typeof response === "string";
        const headers: Record<string, string> = { "content-type": text ? "text/plain;charset=utf-8" : "application/json;charset=utf-8" };
        const location = set.headers.location;
        if (typeof location === "string") headers.location = location;
        return keep(reservation, { status, headers, body: text ? response : JSON.stringify(response) });
      },
      // Whatever ended the request without an answer to keep (a failure in between): the key is freed.
      async afterResponse({ request }) {
        const reservation = settle(request);
        pending.delete(request);
        if (reservation) await keys.release(reservation).catch(() => undefined);
      },
    },
  });
}

/** The plugin a route's Elysia instance uses to offer `idempotent: true`. */
export type Idempotency = ReturnType<typeof idempotency>;
