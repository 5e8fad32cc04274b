import { assertNever, type Decider } from "../core/decider.ts";
import { ValidationFailedError } from "../core/errors.ts";
import { isInFlight, maxRetries, type FolderRef, type RequeueStep, type TaskEvent } from "./events.ts";
import type { TranscriptRef } from "./transcripts.ts";
import { assertCostCorrectable, evolveTask, live, type LiveTask, type TaskState } from "./task-state.ts";

export { assertCostCorrectable, isScribingAttempt, taskVersion, type LiveTask, type TaskState } from "./task-state.ts";

type Created = Extract<TaskEvent, { type: "TaskCreated" }>["data"];

export type TaskCommand =
  | { type: "CreateTask"; task: Omit<Created, "createdAt">; now: string }
  | { type: "RenameTask"; name: string }
  | { type: "MoveTask"; folder: FolderRef | null }
  | { type: "EditTranscript"; transcript: TranscriptRef }
  | { type: "CorrectTaskDetails"; duration?: number; cost?: number; index?: number }
  | { type: "RateTask"; quality: number }
  | { type: "ShareTask" }
  | { type: "UnshareTask" }
  | { type: "DeleteTask" }
  | { type: "RetryTask" }
  | { type: "StartFetching" }
  | { type: "FinishFetching"; path: string; size: number; contentType: string; file: string }
  | { type: "StartTranscription" }
  /**
   * The sweeper's re-drive of a pending or waiting task whose next step was never taken. `requeues`: the re-drives
   * of `attempt` the sweeper saw, so two sweepers deciding at once append one. After `maxRequeues` the task fails
   * with `reason` instead.
   */
  | { type: "RequeueTask"; attempt: number; requeues: number; maxRequeues: number; reason: string }
  /**
   * `transcriptVersion`: the version of the transcript summarised (the current one when absent); `automatic`: the
   * refresh after edits, which records nothing for a version already summarised (two refreshers met).
   */
  | { type: "RecordSummary"; summary: string | null; mindmap: string | null; transcriptVersion?: number; automatic?: boolean }
  | { type: "RecordSummaryFailure"; reason: string; transcriptVersion?: number }
  | { type: "RecordExport"; format: string; version: string; key: string; size: number; requested?: boolean }
  | { type: "RequestExport"; format: string; version: string; now: string }
  /** `attempt`: the attempt the worker worked on; a later attempt (after a retry) is left alone. */
  | {
      type: "FinishTask";
      transcript: TranscriptRef | null;
      duration: number | null;
      cost: number | null;
      summary: string | null;
      mindmap: string | null;
      quality?: number | null;
      diarizationFailure?: string | null;
      attempt?: number;
    }
  | { type: "FailTask"; reason: string; attempt?: number };

/** The commands a task's owner gives (through the API): its name, folder, transcript, details, sharing, deletion, retry. */
type OwnerCommand = Extract<
  TaskCommand,
  { type: "RenameTask" | "MoveTask" | "EditTranscript" | "CorrectTaskDetails" | "RateTask" | "ShareTask" | "UnshareTask" | "DeleteTask" | "RetryTask" }
>;
/** The commands the service's workers and jobs give as the task's work goes on. */
type WorkCommand = Exclude<TaskCommand, OwnerCommand | { type: "CreateTask" }>;

const ownerCommandTypes: Record<OwnerCommand["type"], true> = {
  RenameTask: true,
  MoveTask: true,
  EditTranscript: true,
  CorrectTaskDetails: true,
  RateTask: true,
  ShareTask: true,
  UnshareTask: true,
  DeleteTask: true,
  RetryTask: true,
};
const isOwnerCommand = (command: TaskCommand): command is OwnerCommand => Object.hasOwn(ownerCommandTypes, command.type);

/** A reason is for a person to read, and may quote a tool's output: kept short, so a failure always fits in an event. */
const maxReasonLength = 2000;
const shortReason = (reason: string) => (reason.length <= maxReasonLength ? reason : `${reason.slice(0, maxReasonLength - 1)}…`);

/** Who carries a pending or waiting task on: the fetch (a fetch under way that was lost too), the supplied transcript's finish, or recognition. */
function nextStep(task: LiveTask): RequeueStep {
  if (task.state === "waiting") return "fetch";
  if (task.supplied) return "supply";
  return task.mediaReady ? "transcribe" : "fetch";
}

/**
 * Whether a summary of `made` is shown instead of the one of `shown`: never an older one (a refresh that read the
 * transcript before another refresh's edit records after it), and an automatic refresh only for a newer one.
 */
const summaryReplaces = (made: number, shown: number | null, automatic: boolean) => shown === null || made > shown || (!automatic && made === shown);

function decideForOwner(command: OwnerCommand, task: LiveTask): TaskEvent[] {
  const { userId, taskId } = task;
  switch (command.type) {
    case "RenameTask":
      return task.name === command.name ? [] : [{ type: "TaskRenamed", data: { userId, taskId, name: command.name } }];
    case "MoveTask":
      return task.folderId === (command.folder?.id ?? null) ? [] : [{ type: "TaskMoved", data: { userId, taskId, folder: command.folder } }];
    case "EditTranscript":
      return [{ type: "TranscriptEdited", data: { userId, taskId, transcript: command.transcript } }];
    case "CorrectTaskDetails": {
      const { duration, cost, index } = command;
      if (duration === undefined && cost === undefined && index === undefined) return [];
      if (cost !== undefined) assertCostCorrectable(task);
      return [
        {
          type: "TaskDetailsCorrected",
          data: { userId, taskId, ...(duration !== undefined && { duration }), ...(cost !== undefined && { cost }), ...(index !== undefined && { index }) },
        },
      ];
    }
    case "RateTask":
      return [{ type: "TaskRated", data: { userId, taskId, quality: command.quality } }];
    case "ShareTask":
      return task.shared ? [] : [{ type: "TaskShared", data: { userId, taskId } }];
    case "UnshareTask":
      return task.shared ? [{ type: "TaskUnshared", data: { userId, taskId } }] : [];
    case "DeleteTask":
      return [{ type: "TaskDeleted", data: { userId, taskId, wasInFlight: isInFlight(task.state), attempt: task.attempts } }];
    case "RetryTask":
      if (task.state !== "failed") throw new ValidationFailedError({ status: ["Only a failed task can be retried."] }, "Only a failed task can be retried.");
      if (task.attempts > maxRetries) {
        throw new ValidationFailedError({ attempts: [`The task has been retried ${maxRetries} times already, the most allowed.`] });
      }
      return [{ type: "TaskRetried", data: { userId, taskId, attempt: task.attempts + 1, status: task.disk === "objstore" ? "pending" : "waiting" } }];
    default:
      return assertNever(command);
  }
}

function decideForWork(command: WorkCommand, task: LiveTask): TaskEvent[] {
  const { userId, taskId } = task;
  switch (command.type) {
    case "StartFetching":
      return task.state === "pending" && task.disk !== "objstore" ? [{ type: "MediaFetchStarted", data: { userId, taskId } }] : [];
    case "FinishFetching": {
      if (task.state !== "waiting") return [];
      const { path, size, contentType, file } = command;
      return [{ type: "MediaFetched", data: { userId, taskId, path, size, contentType, file } }];
    }
    case "StartTranscription":
      return task.state === "pending" ? [{ type: "TranscriptionStarted", data: { userId, taskId } }] : [];
    case "RequeueTask": {
      const waiting = task.state === "pending" || task.state === "waiting";
      if (!waiting || command.attempt !== task.attempts || command.requeues !== task.requeues) return [];
      if (task.requeues >= command.maxRequeues) {
        return [{ type: "TaskFailed", data: { userId, taskId, attempt: task.attempts, name: task.name, reason: shortReason(command.reason) } }];
      }
      return [{ type: "TaskRequeued", data: { userId, taskId, attempt: task.attempts, step: nextStep(task), requeue: task.requeues + 1 } }];
    }
    case "RecordSummary": {
      const transcriptVersion = command.transcriptVersion ?? task.freshness.transcriptVersion;
      if (!summaryReplaces(transcriptVersion, task.freshness.summaryVersion, command.automatic === true)) return [];
      return [{ type: "SummaryRefreshed", data: { userId, taskId, summary: command.summary, mindmap: command.mindmap, transcriptVersion } }];
    }
    case "RecordSummaryFailure": {
      const transcriptVersion = command.transcriptVersion ?? task.freshness.transcriptVersion;
      return [{ type: "SummaryFailed", data: { userId, taskId, reason: shortReason(command.reason), transcriptVersion } }];
    }
    case "RecordExport": {
      const { format, version, key, size } = command;
      return [{ type: "ExportGenerated", data: { userId, taskId, format, version, key, size, ...(command.requested && { requested: true }) } }];
    }
    case "RequestExport":
      return [{ type: "ExportRequested", data: { userId, taskId, format: command.format, version: command.version, requestedAt: command.now } }];
    case "FinishTask": {
      if (!isInFlight(task.state) || (command.attempt !== undefined && command.attempt !== task.attempts)) return [];
      const { quality, diarizationFailure } = command;
      return [
        {
          type: "TaskFinished",
          data: {
            userId,
            taskId,
            attempt: task.attempts,
            name: task.name,
            transcript: command.transcript,
            duration: command.duration,
            cost: command.cost,
            summary: command.summary,
            mindmap: command.mindmap,
            ...(quality !== undefined && { quality }),
            ...(diarizationFailure && { diarizationFailure }),
          },
        },
      ];
    }
    case "FailTask":
      if (!isInFlight(task.state) || (command.attempt !== undefined && command.attempt !== task.attempts)) return [];
      return [{ type: "TaskFailed", data: { userId, taskId, attempt: task.attempts, name: task.name, reason: shortReason(command.reason) } }];
    default:
      return assertNever(command);
  }
}

export const taskDecider: Decider<TaskState, TaskCommand, TaskEvent> = {
  initialState: () => ({ status: "none" }),
  evolve: evolveTask,
  decide(command, state): TaskEvent[] {
    if (command.type === "CreateTask") {
      if (state.status !== "none") return [];
      return [{ type: "TaskCreated", data: { ...command.task, createdAt: command.now } }];
    }
    const task = live(state);
    return isOwnerCommand(command) ? decideForOwner(command, task) : decideForWork(command, task);
  },
};
