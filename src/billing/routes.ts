import { leaveBodyUnread, rawBodyText } from "../http/raw-body.ts";
import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { correlationIdOf } from "../http/correlation.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { Checkout } from "./checkout.ts";
import type { PaymentWebhooks } from "./payment-webhook.ts";
import { signatureHeader } from "./webhook-signature.ts";
import type { OriginOf } from "../http/request-origin.ts";
import { planKeys } from "../accounts/plans.ts";
import { offerKeys } from "./catalogue.ts";
import { stringEnum } from "../http/openapi/string-enum.ts";

export const checkoutOptions = t.Object({
  provider: t.String({ description: "The payment provider: `sandbox` (no money is taken) in the embedded profile." }),
  plan: stringEnum(offerKeys, { description: "test | month | year" }),
  plan_key: stringEnum(planKeys, { description: "The plan this buys: pro." }),
  plan_name: t.String({ description: "The plan's name, as the account shows it: Pro." }),
  monthly_allowance_seconds: t.Integer({ description: "Seconds of transcription the plan grants each calendar month (Pro: 72000, 20 hours)." }),
  description: t.String(),
  price: t.Integer({ description: "Minor units of currency (cents): test 100, month 1500, year 15000." }),
  currency: t.String({ description: "ISO 4217, e.g. USD." }),
  interval: stringEnum(["month", "year"], { description: "month | year" }),
  customer: t.Object({ id: t.Integer(), email: t.String(), name: t.String() }),
  checkout_url: t.String({ description: "Send the customer here to pay." }),
  reference: t.String({ description: "Signed token that ties the payment to this account and offer." }),
  expires_at: t.String({ description: "The checkout can be paid until then (one hour)." }),
});

/**
 * GET /api/checkout/{plan} (spec 4.7) and the payment provider's webhook (outside the client API). `originOf`: the
 * address the caller reached us at, where a checkout page served by this API (the sandbox's) is opened, so that the
 * person comes back to the origin their session lives at.
 */
export function billingRoutes({
  checkout,
  webhooks,
  authenticated,
  originOf,
}: {
  checkout: Checkout;
  webhooks: PaymentWebhooks;
  authenticated: Authenticated;
  originOf: OriginOf;
}) {
  const client = new Elysia({ name: "checkout-routes" }).use(authenticated).get(
    "/api/checkout/:plan",
    ({ params, user, request, server }) => {
      const customer = user as UserDocument;
      return checkout.options({ id: customer.id, email: customer.email, name: customer.name }, params.plan, originOf({ request, server }));
    },
    {
      params: t.Object({ plan: t.String({ maxLength: 32 }) }),
      response: { 200: checkoutOptions },
      detail: {
        tags: ["Checkout"],
        security: [{ bearer: [] }],
        summary: "Options for opening a subscription checkout",
        description:
          "Plans: test (Pro monthly at a nominal 1.00 USD, for trying the flow), month (Pro, 15.00 USD a month), year (Pro, 150.00 USD a year). " +
          "Any other plan is a 404. Nothing is recorded until the customer pays, so a client may ask for the offers to show their prices.",
      },
    },
  );

  // Public: a provider cannot hold a bearer token; the signature over the raw body authenticates it.
  const webhook = new Elysia({ name: "payment-webhook-routes" }).post(
    "/api/webhooks/sandbox",
    async ({ request }) => webhooks.receive(rawBodyText(request) ?? (await request.text()), request.headers.get(signatureHeader), correlationIdOf(request)),
    {
      parse: leaveBodyUnread,
      response: { 200: t.Object({ received: t.Boolean() }) },
      detail: {
        tags: ["Payment webhooks"],
        summary: "Payment provider webhook (not part of the client API)",
        description:
          `Signed with \`${signatureHeader}: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">\` and the webhook secret. 400 for a missing or ` +
          `malformed signature, body or reference; 401 for a wrong or stale (over 5 minutes) signature.`,
      },
    },
  );

  return new Elysia({ name: "billing-routes" }).use(client).use(webhook);
}
