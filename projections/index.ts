import type { Projection } from "./projection.ts";
import { usersProjection } from "./users.ts";
import { credentialsProjection } from "./credentials.ts";
import { notificationsProjection } from "./notifications.ts";
import { tasksProjection } from "./tasks.ts";
import { foldersProjection } from "./folders.ts";
import { taskHistoryProjection } from "./task-history.ts";
import { exportsProjection } from "./exports.ts";
import { uploadsProjection } from "./uploads.ts";

/** Every read model of the service, in the order they are started and rebuilt. */
export const allProjections: Projection[] = [usersProjection, credentialsProjection, notificationsProjection, tasksProjection, foldersProjection, taskHistoryProjection, exportsProjection, uploadsProjection];
