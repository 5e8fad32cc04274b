import type { Projection } from "../src/core/projection.ts";
import * as accounts from "../src/accounts/index.ts";
import * as notifications from "../src/notifications/index.ts";
import * as tasks from "../src/tasks/index.ts";
import * as folders from "../src/folders/index.ts";
import * as exports from "../src/exports/index.ts";
import * as uploads from "../src/uploads/index.ts";

/** Every read model of the service, from the capabilities that keep them, in the order they are started and rebuilt. */
export const allProjections: Projection[] = [accounts, notifications, tasks, folders, exports, uploads].flatMap((capability) => capability.projections);
