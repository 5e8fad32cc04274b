/** The billing capability: checkout, the payment provider (a sandbox) and its webhook, and the monthly allowance job. It keeps no read model of its own. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { OriginOf } from "../http/request-origin.ts";
import type { Accounts } from "../accounts/service.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import { billingSettings } from "./settings.ts";

export { deriveKey } from "./checkout-reference.ts";

type BillingApiParts = {
  config: { publicUrl: string; paymentWebhookSecret: string | null };
  /** A key derived from the service's secret for one use (checkout-reference.ts). */
  keyFor(label: string): string;
  accounts: Accounts;
  authenticated: Authenticated;
  originOf: OriginOf;
};

export const capability: Capability<BillingApiParts, { adapters: { eventStore: EventStore; documents: DocumentStore } }, typeof billingSettings> = {
  name: "billing",
  settings: billingSettings,
  projections: [],
  /**
   * Checkout and payments. Both secrets derive from the service secret (shared by every API replica through
   * SIGNING_SECRET) unless PAYMENT_WEBHOOK_SECRET names the one a provider gave us.
   */
  routes: async ({ config, keyFor, accounts, authenticated, originOf }) => {
    const [{ Checkout }, { PaymentWebhooks }, { SandboxProvider }, { billingRoutes }, { sandboxRoutes }] = await Promise.all([
      import("./checkout.ts"),
      import("./payment-webhook.ts"),
      import("./sandbox-provider.ts"),
      import("./routes.ts"),
      import("./sandbox-routes.ts"),
    ]);
    const webhookSecret = config.paymentWebhookSecret ?? keyFor("payment-webhook");
    const sandbox = new SandboxProvider(config.publicUrl, webhookSecret);
    const checkout = new Checkout(keyFor("checkout-reference"), sandbox);
    const webhooks = new PaymentWebhooks(webhookSecret, checkout, accounts);
    return [billingRoutes({ checkout, webhooks, authenticated, originOf }), sandboxRoutes({ checkout, sandbox, accounts })];
  },
  jobs: async ({ adapters }) => [(await import("./monthly-allowance-job.ts")).startMonthlyAllowanceJob(adapters.eventStore, adapters.documents)],
};
