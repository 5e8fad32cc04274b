import type { RecordedEvent } from "../core/event.ts";
import { isTaskEvent } from "../tasks/events.ts";
import { evolveTask, type TaskFields } from "../tasks/tasks-projection.ts";
import { taskListItem } from "../tasks/views.ts";
import { testEventType, type WebhookEventType } from "./events.ts";

/** Which task event becomes which webhook event type. */
export const webhookTypeOf: Readonly<Record<string, WebhookEventType>> = {
  TaskFinished: "task.finished",
  TaskFailed: "task.failed",
  TaskDeleted: "task.deleted",
  ExportGenerated: "export.ready",
};

/** The task as a webhook shows it: a row of `GET /api/tasks` (spec 2.2) with its failure reason and last change. */
export type WebhookTask = ReturnType<typeof taskListItem> & { failure_reason: string | null; updated_at: string };

export function webhookTask(task: TaskFields): WebhookTask {
  return { ...taskListItem({ ...task, _id: String(task.id), _position: 0 }), failure_reason: task.failureReason, updated_at: task.updatedAt };
}

/**
 * The task as it was right after `cause`, folded from its own stream (not the read model, which may not
 * have folded the event yet); as it was just before, for a deletion.
 */
export function taskAt(stream: readonly RecordedEvent[], cause: RecordedEvent): TaskFields | null {
  let task: TaskFields | null = null;
  for (const event of stream.filter(isTaskEvent)) {
    if (event.revision > cause.revision || (event.revision === cause.revision && event.type === "TaskDeleted")) break;
    task = evolveTask(task, event);
  }
  return task;
}

/**
 * A deleted task as its webhook shows it: the facts only (the event log keeps them too), none of what the deletion
 * erases (name, file, folder, failure reason). The message outlives the task (it is retried for a day), and its
 * payload is stored under the account's key, not the task's, so it must carry nothing the deletion is to erase.
 */
export type DeletedWebhookTask = Omit<WebhookTask, "name" | "file" | "folder" | "failure_reason"> & { deleted: true };

export function deletedWebhookTask(task: TaskFields): DeletedWebhookTask {
  const { name: _name, file: _file, folder: _folder, failure_reason: _reason, ...facts } = webhookTask(task);
  return { ...facts, deleted: true };
}

/**
 * The body every attempt of the message sends, fixed when it is scheduled: `{type, timestamp, data}` as
 * the Standard Webhooks spec recommends, `timestamp` being when the event happened (not the attempt).
 * Thin by the spec's advice (under 20 kB): the transcript is read with `GET /api/tasks/{id}`.
 */
export function webhookPayload(type: WebhookEventType, cause: RecordedEvent, task: TaskFields): string {
  const data: Record<string, unknown> = { task: type === "task.deleted" ? deletedWebhookTask(task) : webhookTask(task) };
  if (type === "export.ready") {
    const exported = cause.data as { format: string; version: string; requested?: boolean };
    data.export = { format: exported.format, version: exported.version, requested: exported.requested === true };
  }
  return JSON.stringify({ type, timestamp: cause.time, data });
}

/** What `POST /api/webhooks/{id}/test` sends: a made-up finished task, so a receiver can try its parsing. */
export function testPayload(now: Date): string {
  const at = now.toISOString();
  const task: WebhookTask = {
    id: 0,
    name: "Sample task",
    file: "sample.mp3",
    disk: "objstore",
    size: 0,
    duration: 0,
    cost: 0,
    status: "finished",
    attempts: 1,
    quality: null,
    folder: null,
    created_at: at,
    failure_reason: null,
    updated_at: at,
  };
  return JSON.stringify({ type: testEventType, timestamp: at, data: { task } });
}
