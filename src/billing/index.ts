/** The billing capability: checkout, the payment provider (a sandbox) and its webhook. It keeps no read model of its own. */
export { Checkout } from "./checkout.ts";
export { deriveKey } from "./checkout-reference.ts";
export { PaymentWebhooks } from "./payment-webhook.ts";
export { SandboxProvider } from "./sandbox-provider.ts";
export { billingRoutes } from "./routes.ts";
export { sandboxRoutes } from "./sandbox-routes.ts";
export { startMonthlyAllowanceJob } from "./monthly-allowance-job.ts";
