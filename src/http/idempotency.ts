import { Elysia } from "elysia";
import { idempotencyKeyHeader, maxIdempotencyKeyLength } from "./idempotency-key.ts";
import type { IdempotencyKeys } from "./idempotency-store.ts";
import { IdempotentRequests } from "./idempotent-requests.ts";

/** The OpenAPI description of the header, on every operation that takes it. */
export const idempotencyKeyParameter = {
  name: idempotencyKeyHeader,
  in: "header" as const,
  required: false,
  description:
    "Makes a retry safe (IETF draft-ietf-httpapi-idempotency-key-header): the same key with the same request, for the same user within 24 " +
    "hours, answers the first answer again (status, body and all, with `Idempotent-Replayed: true`) and changes nothing. The same key with " +
    "another body (or on another operation) is 422; while the first request with it is still in flight, 409. Quoted as a Structured Field " +
    `String (\`"8e03978e-…"\`) or bare; 1 to ${maxIdempotencyKeyLength} printable ASCII characters (422 otherwise).`,
  schema: { type: "string" as const, minLength: 1, maxLength: maxIdempotencyKeyLength + 2 },
};

const replayedResponseHeader = {
  "Idempotent-Replayed": {
    description: "`true` when this is the kept answer to an earlier request with the same Idempotency-Key.",
    schema: { type: "string" as const, enum: ["true"] },
  },
};

/**
 * `Idempotency-Key` for the routes that ask for it with `idempotent: true` (after `.use(idempotency)`):
 * once the request is authenticated and its body valid, the key is reserved for (user, key) in the shared
 * store, and the answer is kept before it is sent; a repeat gets that answer back, a repeat with another
 * body 422, a repeat while the first is in flight 409. A request without the header is not touched.
 */
export function idempotency(keys: IdempotencyKeys) {
  const requests = new IdempotentRequests(keys);
  return new Elysia({ name: "idempotency" }).macro({
    idempotent: {
      detail: { parameters: [idempotencyKeyParameter], responseHeaders: replayedResponseHeader },
      beforeHandle: async ({ request, body, path }) => requests.reserve({ request, body, path }),
      // Runs on the handler's value (validated against the route's response schema), and again on each error
      // answer: the answer is kept here, before it is sent, so a retry that follows at once finds it.
      mapResponse: async ({ request, response, set }) => requests.keep({ request, response, set }),
      afterResponse: async ({ request }) => requests.forget(request),
    },
  });
}

/** The plugin a route's Elysia instance uses to offer `idempotent: true`. */
export type Idempotency = ReturnType<typeof idempotency>;
