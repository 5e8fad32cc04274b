import { NotFoundError } from "../core/errors.ts";
import { plans, type PlanKey } from "../accounts/plans.ts";
import { catalogue, isOfferKey, type Offer, type OfferKey } from "./catalogue.ts";
import { isExpired, newReference, readReference, signReference, type CheckoutReference } from "./checkout-reference.ts";

/**
 * Where the client sends the customer to pay. Only the sandbox exists today; a real provider is one more. `origin`:
 * where the customer's client reached the API, for a checkout page the API serves itself (the sandbox's).
 */
export type PaymentProvider = { name: string; checkoutUrl(reference: string, origin?: string): string };

/**
 * Spec 4.7 leaves the options object open; this is what a client needs to open the provider's
 * checkout (or redirect to `checkout_url`) and to show what is being bought.
 */
export type CheckoutOptions = {
  provider: string;
  plan: OfferKey;
  plan_key: PlanKey;
  /** What the plan is called and grants (src/accounts/plans.ts), for a client that shows what is for sale. */
  plan_name: string;
  monthly_allowance_seconds: number;
  description: string;
  price: number;
  currency: string;
  interval: Offer["interval"];
  customer: { id: number; email: string; name: string };
  checkout_url: string;
  reference: string;
  expires_at: string;
};

/** A checkout can be opened and paid for this long; the webhook may still arrive later (provider retries). */
export const checkoutTtlSeconds = 3_600;

export class Checkout {
  constructor(
    private readonly referenceKey: string,
    readonly provider: PaymentProvider,
    private readonly now: () => Date = () => new Date(),
  ) {}

  options(customer: { id: number; email: string; name: string }, offerKey: string, origin?: string): CheckoutOptions {
    if (!isOfferKey(offerKey)) throw new NotFoundError("Unknown plan. Choose test, month or year.");
    const offer = catalogue[offerKey];
    const expiresAt = new Date(this.now().getTime() + checkoutTtlSeconds * 1000);
    const reference = signReference(this.referenceKey, newReference(customer.id, offerKey, expiresAt));
    return {
      provider: this.provider.name,
      plan: offer.key,
      plan_key: offer.plan,
      plan_name: plans[offer.plan].name,
      monthly_allowance_seconds: plans[offer.plan].monthlyAllowanceSeconds,
      description: offer.description,
      price: offer.price,
      currency: offer.currency,
      interval: offer.interval,
      customer: { id: customer.id, email: customer.email, name: customer.name },
      checkout_url: this.provider.checkoutUrl(reference, origin),
      reference,
      expires_at: new Date(Math.floor(expiresAt.getTime() / 1000) * 1000).toISOString(),
    };
  }

  /** A reference this service signed; `open` ones only (for paying), or any age (for webhooks). */
  reference(token: string, which: "open" | "any"): CheckoutReference | null {
    const reference = readReference(this.referenceKey, token);
    if (!reference || (which === "open" && isExpired(reference, this.now()))) return null;
    return reference;
  }
}
