/** The notifications capability: its service, routes and read model. */
import type { Projection } from "../core/projection.ts";
import { notificationsProjection } from "./notifications-projection.ts";

export { Notifications } from "./service.ts";
export { notificationRoutes } from "./routes.ts";

export const projections: Projection[] = [notificationsProjection];
