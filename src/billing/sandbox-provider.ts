import type { Offer } from "./catalogue.ts";
import type { PaymentProvider } from "./checkout.ts";
import type { CheckoutCompleted } from "./payment-webhook.ts";
import { signatureHeader, signWebhook } from "./webhook-signature.ts";
import { logger } from "../logging/logger.ts";
import { loggableUrl } from "../logging/scrubbing.ts";

const log = logger("sandbox-payments");

export type Delivery = { delivered: boolean; status: number | null };

/**
 * A payment provider for the embedded profile and for development: it takes no money. Its checkout
 * page is served by the API itself (sandbox-routes.ts), at the address the person's client reached the API
 * by (their session lives at that origin, and the page sends them back there), and "paying" sends the same
 * kind of signed webhook a real provider would, over real HTTP to PUBLIC_URL, so the receiving side is
 * exercised exactly as in production (signature, reference, idempotency).
 */
export class SandboxProvider implements PaymentProvider {
  readonly name = "sandbox";

  constructor(
    private readonly publicUrl: string,
    private readonly webhookSecret: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** On `origin` (src/http/request-origin.ts) when the caller's is known, PUBLIC_URL otherwise. */
  checkoutUrl(reference: string, origin: string = this.publicUrl): string {
    return `${origin}/sandbox/checkout/${reference}`;
  }

  get webhookUrl(): string {
    return `${this.publicUrl}/api/webhooks/sandbox`;
  }

  /** Sends `checkout.completed` and reports what the webhook endpoint answered (null: unreachable). */
  async completePayment(reference: string, offer: Offer): Promise<Delivery> {
    const created = Math.floor(this.now().getTime() / 1000);
    const event: CheckoutCompleted = {
      id: `evt_${crypto.randomUUID()}`,
      type: "checkout.completed",
      created,
      data: { reference, plan: offer.key, amount: offer.price, currency: offer.currency },
    };
    const body = JSON.stringify(event);
    try {
      const response = await fetch(this.webhookUrl, {
        method: "POST",
        headers: { "content-type": "application/json", [signatureHeader]: signWebhook(this.webhookSecret, body, created), "x-request-id": event.id },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      await response.body?.cancel();
      return { delivered: response.ok, status: response.status };
    } catch (error) {
      log.warn({ url: loggableUrl(this.webhookUrl), eventId: event.id, err: error }, "webhook not delivered");
      return { delivered: false, status: null };
    }
  }
}
