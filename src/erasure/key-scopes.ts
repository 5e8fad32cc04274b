import { parseStreamName, streamId } from "../core/event.ts";

/**
 * Which data key protects an event's personal fields: `task-<id>` for what belongs to one task (destroyed when the
 * task is deleted), `account-<userId>` for what belongs to the account itself (destroyed when it is erased). Every
 * scope has one owning account, whose erasure destroys it too; `upload-<id>` holds an upload's file name. A stream that names no owner stays clear.
 */
export type ScopeOfEvent = { scope: string; accountId: number };

export const taskScope = (taskId: number) => `task-${taskId}`;
export const accountScope = (userId: number) => `account-${userId}`;
export const uploadScope = (uploadId: string) => `upload-${uploadId}`;

/** The upload a task's media came from, named by its path (`uploads/<userId>/<uploadId>/<file>`); null for another path. */
export function uploadOfPath(path: string): string | null {
  return /^uploads\/\d+\/([0-9a-f]{32})\//.exec(path)?.[1] ?? null;
}

type Data = Record<string, unknown>;

const whole = (value: unknown): number | null => (typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null);
const digits = (id: string): number | null => (/^[1-9]\d{0,15}$/.test(id) ? Number(id) : null);

/**
 * The scope of an event about to be stored on `streamName`, or null when its stream names no owner. `ownerOfTask`
 * names a task's owner for events that do not carry `userId` (those stored before every task event did: the
 * `encrypt-events` command finds it on the stream's TaskCreated).
 */
export function scopeOfEvent(streamName: string, data: unknown, ownerOfTask?: number | null): ScopeOfEvent | null {
  const fields = (data !== null && typeof data === "object" ? data : {}) as Data;
  const { category, id } = parseStreamName(streamName);
  switch (category) {
    case "task": {
      const taskId = digits(id);
      const accountId = whole(fields.userId) ?? ownerOfTask ?? null;
      return taskId !== null && accountId !== null ? { scope: taskScope(taskId), accountId } : null;
    }
    case "user": {
      const userId = digits(id);
      return userId !== null ? { scope: accountScope(userId), accountId: userId } : null;
    }
    case "upload": {
      // An upload's file name is the upload's own: the task made from it erases it too (its path names the upload).
      const accountId = whole(fields.userId);
      return accountId !== null && id !== "" ? { scope: uploadScope(id), accountId } : null;
    }
    case "webhooks": {
      const accountId = whole(fields.userId);
      return accountId !== null ? { scope: accountScope(accountId), accountId } : null;
    }
    case "webhookmessage": {
      const accountId = whole(fields.userId);
      if (accountId === null) return null;
      const taskId = fields.eventType === "task.deleted" ? null : taskOfPayload(fields.payload);
      return { scope: taskId === null ? accountScope(accountId) : taskScope(taskId), accountId };
    }
    case "deadletter": {
      // About a task: its scope. About an account's own stream: the account's. Another (a webhook message's,
      // an upload's) names no owner in the dead letter: left clear, and counted (protected-event-store.ts).
      const task = fields.task !== null && typeof fields.task === "object" ? (fields.task as Data) : null;
      const taskId = whole(task?.taskId);
      const accountId = whole(task?.userId);
      if (taskId !== null && accountId !== null) return { scope: taskScope(taskId), accountId };
      const userId = typeof fields.stream === "string" ? digits(streamId(fields.stream, "user") ?? "") : null;
      return userId !== null ? { scope: accountScope(userId), accountId: userId } : null;
    }
    default:
      return null;
  }
}

/**
 * The task a webhook message's payload shows (`{data: {task: {id}}}`, src/webhooks/payload.ts): its copy of the task's
 * name goes with the task. Not a deletion's own message, made as the task is erased: it holds the task's facts only
 * (deletedWebhookTask), and under the account's key it is still sent once the task's key is gone.
 */
function taskOfPayload(payload: unknown): number | null {
  if (typeof payload !== "string") return null;
  try {
    const parsed = JSON.parse(payload) as { data?: { task?: { id?: unknown } } } | null;
    return whole(parsed?.data?.task?.id);
  } catch {
    return null;
  }
}
