import type { BillingInterval, PlanKey } from "../accounts/plans.ts";

/**
 * What `GET /api/checkout/{plan}` sells (spec 4.7 names the three offers and leaves the rest open).
 * Prices are integers in minor units (cents) of `currency`, as payment providers take them.
 * - test: Pro, monthly, for a nominal 1.00: for trying the whole payment flow with little at stake;
 * - month: Pro billed monthly, 15.00 a month;
 * - year: Pro billed yearly, 150.00 a year (two months free).
 */
export const offerKeys = ["test", "month", "year"] as const;
export type OfferKey = (typeof offerKeys)[number];

export type Offer = { key: OfferKey; plan: PlanKey; interval: Exclude<BillingInterval, "none">; price: number; currency: string; description: string };

export const catalogue: Record<OfferKey, Offer> = {
  test: { key: "test", plan: "pro", interval: "month", price: 100, currency: "USD", description: "Pro, monthly (test price)" },
  month: { key: "month", plan: "pro", interval: "month", price: 1_500, currency: "USD", description: "Pro, billed monthly" },
  year: { key: "year", plan: "pro", interval: "year", price: 15_000, currency: "USD", description: "Pro, billed yearly" },
};

export function isOfferKey(value: string): value is OfferKey {
  return (offerKeys as readonly string[]).includes(value);
}

/** 1500 USD minor units → "15.00 USD": for the sandbox page only; clients format prices themselves. */
export function formatPrice(offer: Pick<Offer, "price" | "currency">): string {
  return `${(offer.price / 100).toFixed(2)} ${offer.currency}`;
}
