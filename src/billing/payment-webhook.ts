import { bySystem } from "../core/event.ts";
import { DomainError, UnauthenticatedError } from "../core/errors.ts";
import type { EventMetadata } from "../core/event.ts";
import type { Accounts } from "../accounts/service.ts";
import { catalogue } from "./catalogue.ts";
import type { Checkout } from "./checkout.ts";
import { verifyWebhook } from "./webhook-signature.ts";

/** The one delivery the sandbox provider sends: a checkout was paid. */
export type CheckoutCompleted = {
  id: string;
  type: "checkout.completed";
  /** Unix seconds. */
  created: number;
  data: { reference: string; plan: string; amount: number; currency: string };
};

const badRequest = (message: string) => new DomainError(400, message);

function parseEvent(raw: string): { type: string; data?: Partial<CheckoutCompleted["data"]> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badRequest("The webhook body is not JSON.");
  }
  if (typeof parsed !== "object" || parsed === null || typeof (parsed as { type?: unknown }).type !== "string")
    throw badRequest("The webhook body has no event type.");
  return parsed as { type: string; data?: Partial<CheckoutCompleted["data"]> };
}

/**
 * Receives payment webhooks: outside the client API of the spec and not authenticated by a bearer
 * token but by the signature over the raw body. The account and offer come from the reference this
 * service signed at checkout; the payload must agree with it. Repeats are harmless: the account
 * decider records each checkout reference and ignores one it has already applied.
 */
export class PaymentWebhooks {
  constructor(
    private readonly secret: string,
    private readonly checkout: Checkout,
    private readonly accounts: Pick<Accounts, "changePlan">,
  ) {}

  async receive(rawBody: string, signature: string | null, correlationId: string): Promise<{ received: true }> {
    const check = verifyWebhook(this.secret, rawBody, signature);
    if (!check.valid) {
      if (check.reason === "missing" || check.reason === "malformed") throw badRequest("The webhook signature header is missing or malformed.");
      throw new UnauthenticatedError(check.reason === "expired" ? "The webhook signature is too old." : "The webhook signature does not match.");
    }
    const event = parseEvent(rawBody);
    // Providers send many kinds of events; acknowledging the ones we do not use stops their retries.
    if (event.type !== "checkout.completed") return { received: true };
    const data = event.data ?? {};
    const reference = typeof data.reference === "string" ? this.checkout.reference(data.reference, "any") : null;
    if (!reference) throw badRequest("Unknown checkout reference.");
    const offer = catalogue[reference.offer];
    if (data.plan !== offer.key || data.amount !== offer.price || data.currency !== offer.currency)
      throw badRequest("The payment does not match the checkout it names.");
    const metadata: EventMetadata = bySystem("payment-provider", correlationId);
    await this.accounts.changePlan(reference.userId, offer.plan, offer.interval, "checkout", data.reference!, metadata);
    return { received: true };
  }
}
