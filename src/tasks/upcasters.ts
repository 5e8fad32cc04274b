import type { Upcaster } from "../core/upcasting.ts";
import { taskIdOfStream } from "./events.ts";

type Data = Record<string, unknown>;

/**
 * Task events as stored before version 2 of their shapes, read as they are now: every task event names
 * its `taskId` (earlier ones left it to the stream name), and TaskRetried says `attempt` like every
 * other event about an attempt (it said `attempts`).
 */
export const taskUpcasters: readonly Upcaster[] = [
  (event) => {
    const taskId = taskIdOfStream(event.streamName);
    const data = event.data as Data | null;
    if (taskId === null || data === null || typeof data !== "object") return event;
    const needsTaskId = data.taskId === undefined;
    const renamesAttempts = event.type === "TaskRetried" && data.attempt === undefined && data.attempts !== undefined;
    if (!needsTaskId && !renamesAttempts) return event;
    const upcast: Data = { ...data };
    if (needsTaskId) upcast.taskId = taskId;
    if (renamesAttempts) {
      upcast.attempt = data.attempts;
      delete upcast.attempts;
    }
    return { ...event, data: upcast as typeof event.data };
  },
];
