import type { EngineName } from "./recognition-choice.ts";
import { isOneOf, numericStreamId } from "../core/event.ts";
import type { Segment } from "./segments.ts";
import type { TranscriptRef } from "./transcripts.ts";

export type Disk = "objstore" | "remote" | "videolink";
export const taskStatuses = ["pending", "waiting", "scribing", "finished", "failed"] as const;
export type TaskStatus = (typeof taskStatuses)[number];
/** Pending, waiting and scribing tasks count against the concurrent-task limit. */
export const inFlightStatuses: readonly TaskStatus[] = ["pending", "waiting", "scribing"];
export const isInFlight = (status: TaskStatus) => inFlightStatuses.includes(status);

export type FolderRef = { id: number; name: string };

/** Where a task began, when not from a file or link: `live`, a live transcription session (src/live) kept as the task. */
export type TaskOrigin = "live";

/** What a pending or waiting task needs next: its media fetched, recognised, or its supplied transcript finished. */
export type RequeueStep = "fetch" | "transcribe" | "supply";

/**
 * Everything that happens to a task, on its stream `task-<id>`. Every event carries `taskId` and `userId`
 * (the owner); events stored before they all did are upcast on read (upcasters.ts).
 */
export type TaskEvent =
  | {
      type: "TaskCreated";
      data: {
        taskId: number;
        userId: number;
        name: string;
        file: string | null;
        path: string;
        disk: Disk;
        size: number | null;
        duration: number | null;
        cost: number | null;
        url: string | null;
        speakerDiarization: boolean;
        /** How the task asked to be recognised (recognition-choice.ts): only what it asked; none on older events. */
        engine?: EngineName;
        language?: string;
        vocabulary?: string[];
        /** A transcript the client supplied (the task skips recognition), stored as a blob. */
        transcript: TranscriptRef | null;
        /** Events written before transcripts moved to blobs carry it inline instead. */
        segments?: Segment[] | null;
        /** Absent for a task made from a file or link; `live`: a live session's recording and transcript, charged as a recognition. */
        origin?: TaskOrigin;
        createdAt: string;
      };
    }
  | { type: "TaskRenamed"; data: { userId: number; taskId: number; name: string } }
  | { type: "TaskMoved"; data: { userId: number; taskId: number; folder: FolderRef | null } }
  /** `segments` inline in events written before transcripts moved to blobs, `transcript` since. */
  | { type: "TranscriptEdited"; data: { userId: number; taskId: number; transcript?: TranscriptRef; segments?: Segment[] } }
  | { type: "TaskDetailsCorrected"; data: { userId: number; taskId: number; duration?: number; cost?: number; index?: number } }
  | { type: "TaskRated"; data: { userId: number; taskId: number; quality: number } }
  | { type: "TaskShared"; data: { userId: number; taskId: number } }
  | { type: "TaskUnshared"; data: { userId: number; taskId: number } }
  | { type: "TaskDeleted"; data: { userId: number; taskId: number; wasInFlight: boolean; attempt: number } }
  /** `attempt`: the attempt this retry begins (2 for the first retry); stored as `attempts` before version 2, upcast on read. */
  | { type: "TaskRetried"; data: { userId: number; taskId: number; attempt: number; status: "pending" | "waiting" } }
  /** A remote or video-link task's media is being fetched: the task is `waiting`. */
  | { type: "MediaFetchStarted"; data: { userId: number; taskId: number } }
  /** The fetched media is stored at `path` (a blob key); the task is `pending` again, ready for recognition. */
  | { type: "MediaFetched"; data: { userId: number; taskId: number; path: string; size: number; contentType: string; file: string } }
  | { type: "TranscriptionStarted"; data: { userId: number; taskId: number } }
  /**
   * The task sat pending or waiting past the stuck-task sweeper's bound with its next step never taken (the
   * message that carries it on was lost): `step` names the worker that now takes it, `requeue` counts the
   * re-drives of this attempt (1, 2, ...). The trigger it replaces is superseded (supersededByRequeue).
   */
  | { type: "TaskRequeued"; data: { userId: number; taskId: number; attempt: number; step: RequeueStep; requeue: number } }
  /**
   * `transcriptVersion`: the version of the transcript it was made from (summary-freshness.ts); absent in events
   * written before summaries followed edits, which were made from the newest transcript of their moment.
   */
  | { type: "SummaryRefreshed"; data: { userId: number; taskId: number; summary: string | null; mindmap: string | null; transcriptVersion?: number } }
  /** Summary or mind map could not be made (of the transcript at `transcriptVersion`): the task keeps its transcript; refresh-summary can try again. */
  | { type: "SummaryFailed"; data: { userId: number; taskId: number; reason: string; transcriptVersion?: number } }
  /** A heavy export (pdf, docx) of the transcript at `version` is stored at `key`. `requested`: it answers an ExportRequested (someone is waiting for it). */
  | { type: "ExportGenerated"; data: { userId: number; taskId: number; format: string; version: string; key: string; size: number; requested?: boolean } }
  /** A download found no heavy export (pdf, docx) of the transcript at `version`: the export worker makes one. */
  | { type: "ExportRequested"; data: { userId: number; taskId: number; format: string; version: string; requestedAt: string } }
  /** `quality` (0-5) is the recogniser's confidence; `diarizationFailure` says why speakers could not be told apart (the transcript stands). */
  | {
      type: "TaskFinished";
      data: {
        userId: number;
        taskId: number;
        attempt: number;
        name: string;
        transcript: TranscriptRef | null;
        segments?: Segment[] | null;
        duration: number | null;
        cost: number | null;
        summary: string | null;
        mindmap: string | null;
        quality?: number | null;
        diarizationFailure?: string | null;
      };
    }
  | { type: "TaskFailed"; data: { userId: number; taskId: number; attempt: number; name: string; reason: string } };

export type TaskEventType = TaskEvent["type"];

export const taskEventTypes: readonly TaskEventType[] = [
  "TaskCreated",
  "TaskRenamed",
  "TaskMoved",
  "TranscriptEdited",
  "TaskDetailsCorrected",
  "TaskRated",
  "TaskShared",
  "TaskUnshared",
  "TaskDeleted",
  "TaskRetried",
  "MediaFetchStarted",
  "MediaFetched",
  "TranscriptionStarted",
  "TaskRequeued",
  "SummaryRefreshed",
  "SummaryFailed",
  "ExportGenerated",
  "ExportRequested",
  "TaskFinished",
  "TaskFailed",
];

/** Whether a stored event is one of a task's (every event on a task's stream is), typed as such. */
export const isTaskEvent = isOneOf<TaskEvent>(taskEventTypes);

export const taskStream = (taskId: number | string) => `task-${taskId}`;

export const taskIdOfStream = (streamName: string): number | null => numericStreamId(streamName, "task");

/** The task a stored event is about (it is on the task's stream), or null for an event of another stream: how other capabilities read it. */
export const taskIdOf = (event: { streamName: string }): number | null => taskIdOfStream(event.streamName);

/**
 * Whether a TaskRequeued was appended after `trigger` (the event a worker was handed): the re-drive then owns
 * the work, and the trigger, arriving late rather than lost, leaves it alone, so the work runs once.
 */
export function supersededByRequeue(events: readonly { type: string; revision: number }[], trigger: { revision: number }): boolean {
  return events.some((event) => event.type === "TaskRequeued" && event.revision > trigger.revision);
}

/** At most this many retries per task (spec 8); attempts start at 1. */
export const maxRetries = 3;
