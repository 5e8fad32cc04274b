import { Elysia, t } from "elysia";
import type { Authenticated } from "./authentication.ts";
import { ForbiddenError } from "../core/errors.ts";
import { correlationIdOf } from "../http/correlation.ts";
import type { Accounts, Caller } from "./service.ts";
import { apiKeyBody, apiKeyView, createdApiKey } from "./schemas.ts";

/**
 * The API Keys page of account settings (spec 5.2): first-party only, so these routes take an access
 * token from login or the web app's session, never an API key (a leaked key cannot mint more keys).
 */
export function apiKeyRoutes({ accounts, authenticated }: { accounts: Accounts; authenticated: Authenticated }) {
  const detail = (summary: string, description?: string) => ({ tags: ["API keys"], security: [{ bearer: [] }], summary, description });
  const firstParty = (caller: Caller) => {
    if (caller.kind === "api_key") throw new ForbiddenError("API keys are managed with a login token from account settings, not with an API key.");
  };
  return new Elysia({ name: "api-key-routes" })
    .use(authenticated)
    .get(
      "/api/api-keys",
      async ({ caller }) => {
        firstParty(caller);
        return accounts.listApiKeys(caller.userId);
      },
      { response: { 200: t.Array(apiKeyView) }, detail: detail("List the account's API keys") },
    )
    .post(
      "/api/api-keys",
      async ({ caller, body, request, set }) => {
        firstParty(caller);
        const created = await accounts.createApiKey(caller.userId, body?.name?.trim() || "API key", correlationIdOf(request));
        set.status = 201;
        return created;
      },
      {
        body: t.Optional(apiKeyBody),
        response: { 201: createdApiKey },
        detail: detail("Create an API key", "Pro, Max and pay-as-you-go accounts only (403 otherwise). The key is in this response only."),
      },
    )
    .delete(
      "/api/api-keys/:id",
      async ({ caller, params, request }) => {
        firstParty(caller);
        await accounts.revokeApiKey(caller.userId, params.id, correlationIdOf(request));
        return { message: "API key revoked." };
      },
      { params: t.Object({ id: t.String({ maxLength: 64 }) }), response: { 200: t.Object({ message: t.String() }) }, detail: detail("Revoke an API key") },
    );
}
