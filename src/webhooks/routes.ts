import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Idempotency } from "../http/idempotency.ts";
import type { Webhooks } from "./service.ts";
import { createdEndpoint, createEndpointBody, deliveryList, endpointParams, endpointView, testResult } from "./schemas.ts";

/** Webhook endpoints (docs/api.md): register, list, delete, enable again, their deliveries, and a test message. */
export function webhookRoutes({ webhooks, authenticated, idempotency }: { webhooks: Webhooks; authenticated: Authenticated; idempotency: Idempotency }) {
  const detail = (summary: string, description?: string) => ({ tags: ["Webhooks"], security: [{ bearer: [] }], summary, description });
  return new Elysia({ name: "webhook-routes" })
    .use(authenticated)
    .use(idempotency)
    .get("/api/webhooks", ({ caller }) => webhooks.list(caller.userId), {
      response: { 200: t.Array(endpointView) },
      detail: detail("The account's webhook endpoints"),
    })
    .post(
      "/api/webhooks",
      async ({ caller, body, metadata, set }) => {
        const created = await webhooks.create(caller.userId, body, metadata);
        set.status = 201;
        return created;
      },
      {
        // A retry after a lost answer gets the first answer (with the secret) instead of a second endpoint.
        idempotent: true,
        body: createEndpointBody,
        response: { 201: createdEndpoint },
        detail: detail(
          "Register a webhook endpoint",
          "Messages are signed as Standard Webhooks specifies (webhook-id, webhook-timestamp, webhook-signature) with the secret in this " +
            "answer, shown once. At most 10 endpoints per account.",
        ),
      },
    )
    .delete(
      "/api/webhooks/:id",
      async ({ caller, params, metadata }) => {
        await webhooks.remove(caller.userId, params.id, metadata);
        return { message: "Webhook endpoint deleted." };
      },
      {
        params: endpointParams,
        response: { 200: t.Object({ message: t.String() }) },
        detail: detail("Delete a webhook endpoint (its pending messages are dropped)"),
      },
    )
    .post("/api/webhooks/:id/enable", ({ caller, params, metadata }) => webhooks.enable(caller.userId, params.id, metadata), {
      params: endpointParams,
      response: { 200: endpointView },
      detail: detail(
        "Turn a disabled webhook endpoint on again",
        "For an endpoint disabled after its deliveries kept failing (or a 410 Gone), once the receiver is fixed: new messages go to it again, " +
          "signed with the same secret; messages given up while it was disabled are not sent again (the deliveries list shows them). An endpoint " +
          "that is enabled already is answered as it is.",
      ),
    })
    .get("/api/webhooks/:id/deliveries", ({ caller, params }) => webhooks.deliveries(caller.userId, params.id), {
      params: endpointParams,
      response: { 200: deliveryList },
      detail: detail("The endpoint's latest delivery attempts, newest first"),
    })
    .post("/api/webhooks/:id/test", ({ caller, params, metadata }) => webhooks.test(caller.userId, params.id, metadata), {
      params: endpointParams,
      response: { 200: testResult },
      detail: detail(
        "Send a webhook.test message now",
        "One attempt, not retried, signed like any message; the answer says how it went, and the deliveries list shows it. Disabled endpoints are tested too.",
      ),
    });
}
