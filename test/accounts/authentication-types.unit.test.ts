/**
 * The authentication plugin's type reaches every route: `caller`, `user`, `metadata` and `expiresAt` are typed in a
 * handler of a route that uses it, and every route factory takes the plugin as `Authenticated`, never as an
 * arbitrary Elysia app (which made them `any`, and `const n: string = caller.userId` compiled). These are checked
 * by the type checker (`npm run typecheck` covers test/); the test itself only has to run.
 */
import { expect, expectTypeOf, test } from "bun:test";
import { Elysia } from "elysia";
import type { Authenticated } from "../../src/accounts/authentication.ts";
import type { Caller } from "../../src/accounts/service.ts";
import type { UserDocument } from "../../src/accounts/users-projection.ts";
import type { EventMetadata } from "../../src/core/event.ts";
import type { apiKeyRoutes } from "../../src/accounts/api-key-routes.ts";
import type { authRoutes } from "../../src/accounts/routes.ts";
import type { sessionRoutes } from "../../src/accounts/session-routes.ts";
import type { userRoutes } from "../../src/accounts/user-routes.ts";
import type { billingRoutes } from "../../src/billing/routes.ts";
import type { exportRoutes } from "../../src/exports/routes.ts";
import type { folderRoutes } from "../../src/folders/routes.ts";
import type { notificationRoutes } from "../../src/notifications/routes.ts";
import type { openAiRoutes } from "../../src/openai-compat/routes.ts";
import type { searchRoutes } from "../../src/search/routes.ts";
import type { audioRoutes } from "../../src/tasks/audio-routes.ts";
import type { historyRoutes } from "../../src/tasks/history-routes.ts";
import type { taskRoutes } from "../../src/tasks/routes.ts";
import type { shareRoutes } from "../../src/tasks/share-routes.ts";
import type { transcriptionRoutes } from "../../src/transcription/routes.ts";
import type { uploadRoutes } from "../../src/uploads/routes.ts";
import type { webhookRoutes } from "../../src/webhooks/routes.ts";

/** A route built as every route file builds one; never called, only type-checked. */
function probeRoute(authenticated: Authenticated) {
  return new Elysia().use(authenticated).get("/probe", ({ caller, user, metadata, expiresAt }) => {
    expectTypeOf(caller).toEqualTypeOf<Caller>();
    expectTypeOf(user).toEqualTypeOf<UserDocument>();
    expectTypeOf(metadata).toEqualTypeOf<EventMetadata>();
    expectTypeOf(expiresAt).toEqualTypeOf<string | null>();
    // @ts-expect-error A user id is a number: this compiles only if `caller` is `any` again.
    const asText: string = caller.userId;
    return asText;
  });
}

type AuthenticatedOf<Routes extends (options: never) => unknown> = Parameters<Routes>[0] extends { authenticated: infer A } ? A : never;

test("a route that uses the authentication plugin sees the caller, user, metadata and expiry typed", () => {
  expect(typeof probeRoute).toBe("function");
});

test("every route file takes the authentication plugin as `Authenticated`", () => {
  expectTypeOf<AuthenticatedOf<typeof apiKeyRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof authRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof sessionRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof userRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof billingRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof exportRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof folderRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof notificationRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof openAiRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof searchRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof audioRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof historyRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof taskRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof shareRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof transcriptionRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof uploadRoutes>>().toEqualTypeOf<Authenticated>();
  expectTypeOf<AuthenticatedOf<typeof webhookRoutes>>().toEqualTypeOf<Authenticated>();
});
