import { integer, optionalText, secret, url } from "../config/setting.ts";

const perMinute = { min: 1, max: 1_000_000_000 } as const;

/** Limits on accounts and their sign-in, and social login (docs/api.md). */
export const accountSettings = {
  RATE_LIMIT_PER_MINUTE: integer({
    group: "accounts and billing",
    ...perMinute,
    fallback: 10,
    description: "Requests a minute per token or API key on authenticated endpoints, then 429.",
  }),
  SESSION_RATE_LIMIT_PER_MINUTE: integer({
    group: "accounts and billing",
    ...perMinute,
    fallback: 600,
    description:
      "Requests a minute per web app session (the sign-in cookie), then 429: sized for a person clicking, whose page visit makes a handful of " +
      "calls. Tokens and API keys keep RATE_LIMIT_PER_MINUTE.",
  }),
  SESSION_DAYS: integer({
    group: "accounts and billing",
    min: 1,
    max: 3650,
    fallback: 30,
    description: "How long a web app sign-in lasts; then the session cookie is refused and the app asks to sign in again.",
  }),
  TOKEN_TTL_DAYS: integer({
    group: "accounts and billing",
    min: 1,
    max: 3650,
    fallback: 30,
    description:
      "How long an access token (`scr_…`, from POST /api/login or /api/register) lasts after its last use; then it is refused (401). Each use " +
      "moves the end on (recorded at most once a day), unlike SESSION_DAYS, which counts from sign-in. API keys last until revoked.",
  }),
  LOGIN_ATTEMPTS_PER_MINUTE: integer({
    group: "accounts and billing",
    ...perMinute,
    fallback: 5,
    description: "Login attempts a minute per email address (per client address for a body without a usable email).",
  }),
  REGISTRATIONS_PER_MINUTE: integer({
    group: "accounts and billing",
    ...perMinute,
    fallback: 5,
    description: "Registration attempts one client address may make a minute, refused ones included.",
  }),
  IDP_ISSUER: url({
    group: "accounts and billing",
    protocols: ["http", "https"],
    shownDefault: "unset: no social login",
    description: "The OpenID Connect provider of social login; needs IDP_CLIENT_ID and IDP_CLIENT_SECRET.",
  }),
  IDP_CLIENT_ID: optionalText({ group: "accounts and billing", description: "Our client id at the OpenID Connect provider." }),
  IDP_CLIENT_SECRET: secret({ group: "accounts and billing", description: "Our client secret at the OpenID Connect provider." }),
  IDP_REDIRECT_URI: url({
    group: "accounts and billing",
    protocols: ["http", "https"],
    shownDefault: "$PUBLIC_URL/auth/callback",
    description: "The redirect URI sent to the provider.",
  }),
} as const;
