import type { EventStore } from "../core/event-store.ts";
import type { EventMetadata } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { NotFoundError, ValidationFailedError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { endpointsDecider, type EndpointCommand } from "./decider.ts";
import { testEventType, webhookEndpointsStream, webhookEventTypes, type WebhookEventType } from "./events.ts";
import type { EndpointDocument } from "./endpoints-projection.ts";
import type { DeliveriesDocument, DeliveryView } from "./deliveries-projection.ts";
import type { WebhookDelivery } from "./delivery.ts";
import type { WebhookSettings } from "./sender.ts";
import { newSigningSecret } from "./signing.ts";
import { checkTargetUrl } from "./target-url.ts";
import { testPayload } from "./payload.ts";

export type EndpointView = {
  id: string;
  url: string;
  events: WebhookEventType[];
  status: "enabled" | "disabled";
  disabled_reason: string | null;
  created_at: string;
};
export type TestResult = { message_id: string; succeeded: boolean; status_code: number | null; duration_ms: number; error: string | null };

const notFound = () => new NotFoundError("Webhook endpoint not found.");

function view(doc: EndpointDocument): EndpointView {
  return { id: doc.id, url: doc.url, events: doc.events, status: doc.status, disabled_reason: doc.disabledReason, created_at: doc.createdAt };
}

/**
 * Webhook endpoint use cases: commands on the account's `webhooks-<user id>` stream, reads from the
 * `webhook_endpoints` and `webhook_deliveries` read models. Another account's endpoint is not found,
 * exactly like one that does not exist.
 */
export class Webhooks {
  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
    private readonly delivery: WebhookDelivery,
    private readonly settings: Pick<WebhookSettings, "allowedNetworks" | "resolve">,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async list(userId: number): Promise<EndpointView[]> {
    return (await this.db.collection<EndpointDocument>("webhook_endpoints").find({ userId }, { sort: { createdAt: 1 } })).map(view);
  }

  /** Registers an endpoint; its secret is in this answer only. `events` absent or empty: all four types. */
  async create(userId: number, body: { url: string; events?: string[] }, metadata: EventMetadata): Promise<EndpointView & { secret: string }> {
    const events = subscribedTypes(body.events ?? []);
    const url = await checkTargetUrl(body.url, this.settings);
    const endpointId = crypto.randomUUID();
    const signingSecret = newSigningSecret();
    const now = this.now().toISOString();
    await this.run(userId, { type: "CreateEndpoint", userId, endpointId, url, events, signingSecret, now }, metadata);
    return { id: endpointId, url, events, status: "enabled", disabled_reason: null, created_at: now, secret: signingSecret };
  }

  async remove(userId: number, endpointId: string, metadata: EventMetadata): Promise<void> {
    await this.run(userId, { type: "DeleteEndpoint", endpointId }, metadata);
  }

  /**
   * Turns a disabled endpoint on again (one already on stays as it is) and answers with it: new messages go to
   * it; those given up while it was off are not sent again.
   */
  async enable(userId: number, endpointId: string, metadata: EventMetadata): Promise<EndpointView> {
    await this.run(userId, { type: "EnableEndpoint", endpointId, now: this.now().toISOString() }, metadata);
    const endpoint = await this.db.collection<EndpointDocument>("webhook_endpoints").findOne({ _id: endpointId, userId });
    if (!endpoint) throw notFound();
    return view(endpoint);
  }

  /** The endpoint's latest attempts, newest first (at most 50). */
  async deliveries(userId: number, endpointId: string): Promise<DeliveryView[]> {
    const endpoint = await this.db.collection<EndpointDocument>("webhook_endpoints").findOne({ _id: endpointId, userId });
    if (!endpoint) throw notFound();
    const found = await this.db.collection<DeliveriesDocument>("webhook_deliveries").findOne({ _id: endpointId });
    return found?.attempts ?? [];
  }

  /** Sends a `webhook.test` message now, once, and answers with how the attempt went (disabled endpoints included). */
  async test(userId: number, endpointId: string, metadata: EventMetadata): Promise<TestResult> {
    const endpoint = (await this.delivery.endpointsOf(userId)).endpoints.get(endpointId);
    if (!endpoint) throw notFound();
    const now = this.now();
    const messageId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
    const message = {
      userId,
      endpointId,
      messageId,
      eventType: testEventType,
      payload: testPayload(now),
      test: true,
      scheduledAt: now.toISOString(),
      nextAttemptAt: null,
    };
    const outcome = await this.delivery.sendTest(message, endpoint, metadata);
    return { message_id: messageId, succeeded: outcome.error === null, status_code: outcome.statusCode, duration_ms: outcome.durationMs, error: outcome.error };
  }

  private async run(userId: number, command: EndpointCommand, metadata: EventMetadata): Promise<void> {
    const result = await handle(this.store, webhookEndpointsStream(userId), endpointsDecider, (state) => endpointsDecider.decide(command, state), { metadata });
    if (result.position !== null) await this.waitFor(result.position, ["webhook-endpoints"]);
  }
}

/** The types asked for, each once, in the usual order; none means every type. */
function subscribedTypes(asked: readonly string[]): WebhookEventType[] {
  const unknown = asked.filter((type) => !(webhookEventTypes as readonly string[]).includes(type));
  if (unknown.length > 0)
    throw new ValidationFailedError({ events: [`Unknown event type ${JSON.stringify(unknown[0])}: use ${webhookEventTypes.join(", ")}.`] });
  return asked.length === 0 ? [...webhookEventTypes] : webhookEventTypes.filter((type) => asked.includes(type));
}
