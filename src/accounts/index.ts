/** The accounts capability: what the composition root wires (services, routes) and its read models. */
import type { Projection } from "../core/projection.ts";
import { usersProjection } from "./users-projection.ts";
import { credentialsProjection } from "./credentials-projection.ts";

export { Accounts } from "./service.ts";
export { RateLimiter } from "./rate-limiter.ts";
export { authentication } from "./authentication.ts";
export { authRoutes } from "./routes.ts";
export { userRoutes } from "./user-routes.ts";
export { apiKeyRoutes } from "./api-key-routes.ts";
export { OidcClient } from "./oidc-client.ts";
export { OidcSocialLogin } from "./social-login.ts";

export const projections: Projection[] = [usersProjection, credentialsProjection];
