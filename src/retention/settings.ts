import { integer } from "../config/setting.ts";

/** The longest retention an account may choose (docs/api.md, "Retention"). */
export const retentionSettings = {
  RETENTION_MAX_DAYS: integer({
    group: "accounts and billing",
    min: 1,
    max: 36_500,
    fallback: 3650,
    description:
      "The longest `retention_days` an account may set with PUT /api/user (422 above it): its tasks are then deleted that many days after they " +
      "were created. Accounts keep their tasks until deleted unless they set one; lowering this leaves retentions already set as they are.",
  }),
} as const;
