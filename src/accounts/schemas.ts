import { nameText } from "../http/names.ts";
import { longestEmail } from "../http/formats.ts";
import { t } from "elysia";
import { Type } from "@sinclair/typebox";
import { everyOf, stringEnum } from "../http/openapi/string-enum.ts";
import { planKeys, type BillingInterval, type Plan } from "./plans.ts";

const email = t.String({
  format: "email",
  maxLength: longestEmail,
  error: `The email field must be a valid email address of at most ${longestEmail} characters.`,
});
const name = nameText({ minLength: 1, maxLength: 255 });

export const registerBody = t.Object({
  name,
  email,
  password: t.String({ minLength: 8, maxLength: 255, description: "At least 8 characters." }),
  password_confirmation: t.String({ maxLength: 255, description: "Must equal password." }),
});

export const loginBody = t.Object({ email: t.String({ minLength: 1, maxLength: longestEmail }), password: t.String({ minLength: 1, maxLength: 255 }) });

export const socialLoginBody = t.Object({
  provider: t.String({ minLength: 1, maxLength: 64, description: "Only `idp` is supported." }),
  code: t.String({ minLength: 1, maxLength: 4096, description: "OAuth 2.0 authorization code from the identity provider." }),
});

export const tokenResponse = t.Object({
  token: t.String({
    description: "Opaque bearer token; send it as `Authorization: Bearer <token>`. It lasts TOKEN_TTL_DAYS (default 30) after its last use, then 401.",
  }),
  user: t.Object({ id: t.Integer(), name: t.String(), email: t.String() }),
});

/** The web app's session: who is signed in, and until when. Its secret is in the HttpOnly cookie, never in a body. */
export const sessionResponse = t.Object({
  user: t.Object({ id: t.Integer(), name: t.String(), email: t.String() }),
  expires_at: t.String({ format: "date-time", description: "When the session ends (the cookie's Max-Age says the same); then sign in again." }),
});

/** RETENTION_MAX_DAYS's default, for the body's type (the routes build theirs with the configured cap). */
const defaultRetentionMaxDays = 3650;

/** The one message for every way to miss `retention_days`, naming the cap: the body's schema and the retention decider say it. */
export const retentionDaysError = (maxDays: number) =>
  `The retention days field must be a whole number of days from 1 to ${maxDays} (the longest this service allows), or null to keep tasks until deleted.`;

/** `retention_days`: a whole number of days up to the cap, or null. */
export const retentionDays = (maxDays: number) => {
  const error = retentionDaysError(maxDays);
  // TypeBox's own integer, not Elysia's `t.Integer`, which would take the string "7" for 7: a JSON number or null only.
  return t.Union([Type.Integer({ minimum: 1, maximum: maxDays, error }), t.Null()], {
    error,
    description:
      `Tasks are deleted this many days after they were created (about a day later at most: they go in daily batches, each announced by a ` +
      `notification a day before). null (the default): kept until deleted. At most ${maxDays} (RETENTION_MAX_DAYS). A JSON number: ` +
      "not in a form, whose fields are text.",
  });
};

export const updateUserBodyOf = (retentionMaxDays: number) =>
  t.Object({
    name: t.Optional(name),
    email: t.Optional(email),
    avatar: t.Optional(t.File({ description: "PNG, JPEG, GIF or WebP image, at most 5 MB (multipart/form-data)." })),
    retention_days: t.Optional(retentionDays(retentionMaxDays)),
  });

export const updateUserBody = updateUserBodyOf(defaultRetentionMaxDays);

// The subscription's closed sets (src/accounts/plans.ts).
const billingIntervals = everyOf<BillingInterval>()(["none", "month", "year"]);
const accessTiers = everyOf<Plan["accessTier"]>()(["free", "standard", "priority"]);

export const userResponse = t.Object({
  id: t.Integer(),
  name: t.String(),
  email: t.String(),
  avatar: t.String({ description: "URL of the avatar image (a generated one until the user uploads their own)." }),
  balance: t.Object({
    used_seconds: t.Integer({ description: "Seconds charged since the last monthly grant." }),
    remaining_seconds: t.Integer({ description: "allowance_remaining_seconds + top_up_remaining_seconds." }),
    allowance_remaining_seconds: t.Integer({ description: "Left of this month's plan allowance; it does not carry over." }),
    top_up_remaining_seconds: t.Integer({ description: "Left of top-ups (purchases, operator grants); they never expire." }),
    total_seconds: t.Integer({ description: "used_seconds + remaining_seconds." }),
    usage_percent: t.Integer({ minimum: 0, maximum: 100 }),
  }),
  subscription: t.Object({
    plan: t.String({ description: "Display name: Free, Pay as you go, Pro, Max." }),
    plan_key: stringEnum(planKeys, { description: "free | payg | pro | max" }),
    tier: stringEnum(["free", "paid"], { description: "free | paid" }),
    billing_interval: stringEnum(billingIntervals, { description: "none | month | year" }),
    active: t.Boolean({ description: "Whether a paid plan is in force (false on Free)." }),
    access_tier: stringEnum(accessTiers, { description: "free (web only, no API) | standard (API, medium priority) | priority (API, high priority)" }),
  }),
  queue: t.Object({
    pending_count: t.Integer({ description: "Tasks pending or waiting." }),
    running_count: t.Integer({ description: "Tasks scribing." }),
    failed_count: t.Integer({ description: "Failed tasks." }),
  }),
  retention_days: t.Nullable(
    t.Integer({ description: "Days the account's tasks are kept after their creation; null: until deleted (PUT /api/user sets it)." }),
  ),
  retention_max_days: t.Integer({ description: "The longest retention_days this service allows (RETENTION_MAX_DAYS)." }),
});

export const profileResponse = t.Object({ id: t.Integer(), name: t.String(), email: t.String(), avatar: t.String() });

export const apiKeyBody = t.Object({ name: t.Optional(nameText({ minLength: 1, maxLength: 255 })) });
export const apiKeyView = t.Object({ id: t.String(), name: t.String(), prefix: t.String(), created_at: t.String() });
export const createdApiKey = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String(),
  created_at: t.String(),
  key: t.String({ description: "The key itself; shown only in this response." }),
});
