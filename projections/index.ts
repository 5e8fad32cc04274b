import type { Projection } from "../src/core/projection.ts";
import { usersProjection } from "../src/accounts/users-projection.ts";
import { credentialsProjection } from "../src/accounts/credentials-projection.ts";
import { notificationsProjection } from "../src/notifications/notifications-projection.ts";
import { tasksProjection } from "../src/tasks/tasks-projection.ts";
import { foldersProjection } from "../src/folders/folders-projection.ts";
import { taskHistoryProjection } from "../src/tasks/task-history-projection.ts";
import { exportsProjection } from "../src/exports/exports-projection.ts";
import { uploadsProjection } from "../src/uploads/uploads-projection.ts";

/** Every read model of the service, in the order they are started and rebuilt. */
export const allProjections: Projection[] = [usersProjection, credentialsProjection, notificationsProjection, tasksProjection, foldersProjection, taskHistoryProjection, exportsProjection, uploadsProjection];
