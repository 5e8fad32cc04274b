import { secret } from "../config/setting.ts";

/** The payment provider's webhooks (docs/api.md); shown with the accounts' settings. */
export const billingSettings = {
  PAYMENT_WEBHOOK_SECRET: secret({
    group: "accounts and billing",
    shownDefault: "derived from SIGNING_SECRET",
    description: "Verifies the payment provider's webhooks: the one the provider gave us.",
  }),
} as const;
