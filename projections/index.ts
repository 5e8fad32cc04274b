import type { Projection } from "../src/core/projection.ts";
// Straight from each capability's projection files, not through its index: the CLIs load this list, and an
// index also brings the capability's routes and renderers (pdf-lib, docx), which tripled their start-up time.
import { usersProjection } from "../src/accounts/users-projection.ts";
import { credentialsProjection } from "../src/accounts/credentials-projection.ts";
import { notificationsProjection } from "../src/notifications/notifications-projection.ts";
import { tasksProjection } from "../src/tasks/tasks-projection.ts";
import { taskHistoryProjection } from "../src/tasks/task-history-projection.ts";
import { taskSlotsProjection } from "../src/tasks/slots-projection.ts";
import { foldersProjection } from "../src/folders/folders-projection.ts";
import { exportsProjection } from "../src/exports/exports-projection.ts";
import { uploadsProjection } from "../src/uploads/uploads-projection.ts";
import { webhookEndpointsProjection } from "../src/webhooks/endpoints-projection.ts";
import { webhookDeliveriesProjection } from "../src/webhooks/deliveries-projection.ts";
import { searchProjection } from "../src/search/search-projection.ts";
import { deadLettersProjection } from "../src/dead-letters/dead-letters-projection.ts";

/** Every read model of the service (each capability's index lists its own), in the order they are started and rebuilt. */
export const allProjections: Projection[] = [
  usersProjection,
  credentialsProjection,
  notificationsProjection,
  tasksProjection,
  taskHistoryProjection,
  taskSlotsProjection,
  foldersProjection,
  exportsProjection,
  uploadsProjection,
  webhookEndpointsProjection,
  webhookDeliveriesProjection,
  searchProjection,
  deadLettersProjection,
];
