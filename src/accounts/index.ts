/** The accounts capability: what the composition root wires (services, routes), its read models and its worker. */
import type { Projection } from "../core/projection.ts";
import { usersProjection } from "./users-projection.ts";
import { credentialsProjection } from "./credentials-projection.ts";
import type { Worker } from "../core/worker.ts";
import type { EventStore } from "../core/event-store.ts";
import { emailClaimsWorker } from "./email-claims-worker.ts";

export { Accounts } from "./service.ts";
export { Profiles } from "./profiles.ts";
export { RateLimiter } from "./rate-limiter.ts";
export { authentication } from "./authentication.ts";
export { authRoutes } from "./routes.ts";
export { sessionRoutes } from "./session-routes.ts";
export { userRoutes } from "./user-routes.ts";
export { apiKeyRoutes } from "./api-key-routes.ts";
export { OidcClient } from "./oidc-client.ts";
export { OidcSocialLogin } from "./social-login.ts";

export const projections: Projection[] = [usersProjection, credentialsProjection];

export function workers({ eventStore }: { eventStore: EventStore }): Worker[] {
  return [emailClaimsWorker(eventStore)];
}
