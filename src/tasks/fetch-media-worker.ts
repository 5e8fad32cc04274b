import { reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import { NotFoundError } from "../core/errors.ts";
import { TaskCommands, taskStateOf, type TaskCommand } from "./commands.ts";
import { isTaskEvent, supersededByRequeue, type TaskEvent } from "./events.ts";
import { MediaFetchError } from "../media/safe-fetch.ts";
import { fetchTaskMedia, type MediaFetchSettings } from "../media/fetch-media.ts";
import type { Worker } from "../core/worker.ts";
import { hasTranscript } from "./transcripts.ts";

type Trigger = Extract<TaskEvent, { type: "TaskCreated" | "TaskRetried" | "TaskRequeued" }>;

/**
 * Fetches the media of `remote` and `videolink` tasks when they are created (or retried into
 * `waiting`, or re-driven by the stuck-task sweeper): StartFetching (the task is `waiting`), the
 * download into the blob store, then FinishFetching (`pending` again, ready for recognition) or
 * FailTask with a reason a user can read.
 * A redelivery finds the task no longer pending or waiting, or fetches again into the same key.
 */
export function fetchMediaWorker(store: EventStore, blobs: BlobStore, settings: MediaFetchSettings): Worker<Trigger> {
  const commands = new TaskCommands(store);
  return {
    name: "fetch-media",
    subject: "scribe.task.>",
    eventTypes: ["TaskCreated", "TaskRetried", "TaskRequeued"],
    ackWaitMs: 60_000,
    async handle(event) {
      if (event.type === "TaskCreated" && (event.data.disk === "objstore" || hasTranscript(event.data))) return;
      if (event.type === "TaskRetried" && event.data.status !== "waiting") return;
      if (event.type === "TaskRequeued" && event.data.step !== "fetch") return;

      const recordedHistory = await store.readStream(event.streamName);
      // Re-driven by the sweeper after this trigger: that delivery fetches.
      if (supersededByRequeue(recordedHistory, event)) return;
      const history = recordedHistory.filter(isTaskEvent);
      const created = history.find((e) => e.type === "TaskCreated");
      const state = taskStateOf(history);
      if (!created || created.data.disk === "objstore" || state.status !== "live") return;
      const run = (command: TaskCommand) => commands.run(created.data.taskId, command, { metadata: reactingTo(event, "fetch-media") });
      if (state.state === "pending") await run({ type: "StartFetching" });
      else if (state.state !== "waiting") return;

      const { taskId, userId, disk, path } = created.data;
      let media: Awaited<ReturnType<typeof fetchTaskMedia>>;
      try {
        media = await fetchTaskMedia({ disk: disk as "remote" | "videolink", url: created.data.url ?? path, userId, taskId }, blobs, settings);
      } catch (error) {
        if (!(error instanceof MediaFetchError)) throw error; // our own trouble (the blob store): try again later
        await run({ type: "FailTask", reason: `The media could not be fetched: ${error.message}.` }).catch(ignoreDeleted);
        return;
      }
      try {
        const { events } = await run({ type: "FinishFetching", path: media.key, size: media.size, contentType: media.contentType, file: media.file });
        // Failed by someone else while we fetched: nobody will use the file.
        if (events.length === 0) await blobs.delete(media.key);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        await blobs.delete(media.key); // deleted while we fetched
      }
    },
  };
}

function ignoreDeleted(error: unknown): void {
  if (!(error instanceof NotFoundError)) throw error;
}
