/** The notifications capability: its service, routes and read model. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import { notificationsProjection } from "./notifications-projection.ts";

type NotificationsApiParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore };
  waitForProjections: WaitForProjections;
  authenticated: Authenticated;
};

export const capability: Capability<NotificationsApiParts> = {
  name: "notifications",
  projections: [notificationsProjection],
  routes: async ({ adapters, waitForProjections, authenticated }) => {
    const [{ Notifications }, { notificationRoutes }] = await Promise.all([import("./service.ts"), import("./routes.ts")]);
    return [notificationRoutes({ notifications: new Notifications(adapters.eventStore, adapters.documents, waitForProjections), authenticated })];
  },
};
