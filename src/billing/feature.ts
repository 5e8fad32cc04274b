import type { AnyElysia } from "elysia";
import type { Config } from "../config.ts";
import type { Adapters } from "../adapters.ts";
import type { Accounts } from "../accounts/service.ts";
import { Checkout } from "./checkout.ts";
import { deriveKey } from "./checkout-reference.ts";
import { PaymentWebhooks } from "./payment-webhook.ts";
import { SandboxProvider } from "./sandbox-provider.ts";
import { billingRoutes } from "./routes.ts";
import { sandboxRoutes } from "./sandbox-routes.ts";

/**
 * Wires checkout and payments. Both secrets derive from the service secret (shared by every API
 * replica through SIGNING_SECRET) unless PAYMENT_WEBHOOK_SECRET names the one a provider gave us.
 */
export function billingFeatures(config: Config, adapters: Adapters, accounts: Accounts, authenticated: AnyElysia): AnyElysia[] {
  const webhookSecret = config.paymentWebhookSecret ?? deriveKey(adapters.secret, "payment-webhook");
  const sandbox = new SandboxProvider(config.publicUrl, webhookSecret);
  const checkout = new Checkout(deriveKey(adapters.secret, "checkout-reference"), sandbox);
  const webhooks = new PaymentWebhooks(webhookSecret, checkout, accounts);
  return [billingRoutes({ checkout, webhooks, authenticated }), sandboxRoutes({ checkout, sandbox, accounts })];
}
