import type { EventStore } from "../core/event-store.ts";
import type { EventMetadata, RecordedEvent } from "../core/event.ts";
import { TooManyRequestsError } from "../core/errors.ts";
import { loadState } from "../core/state-cache.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { admissionDecider, maxConcurrentTasks, slotOfUpload, type AdmissionCommand } from "./admission.ts";
import { taskDecider } from "./decider.ts";
import { isInFlight, isTaskEvent, taskStream, type Disk } from "./events.ts";
import { secondsCharged, type TranscriptSource } from "./transcripts.ts";

/** A slot whose attempt has not begun this long after it was taken belongs to a creation or retry that died. */
const abandonedAfterMs = 60_000;

/**
 * How long after its attempt ended a slot is left to the task-slots worker, which frees it within moments when its
 * message arrives; past this its message was lost, and the stuck-task sweeper frees it.
 */
export const endedSlotGraceMs = 60_000;

/** How an attempt ended, for its slot: when, and the seconds to charge as the slot is freed (0: none). */
export type EndedAttempt = { endedAt: string; chargeSeconds: number };

/**
 * Whether `attempt` of the task can no longer finish, from its stream: it finished (charged as the task-slots worker
 * would: secondsCharged), failed, was retried (a later attempt holds its own slot) or the task was deleted. Null while
 * it may still finish, or never began. A live session's task was charged as it was admitted, however it ends.
 */
export function endedAttempt(events: readonly RecordedEvent[], attempt: number): EndedAttempt | null {
  let created: TranscriptSource | null = null;
  for (const event of events.filter(isTaskEvent)) {
    switch (event.type) {
      case "TaskCreated":
        created = event.data;
        break;
      case "TaskFinished":
        if (event.data.attempt === attempt)
          return { endedAt: event.time, chargeSeconds: created ? secondsCharged(created, event.data.cost, attempt) : Math.max(0, event.data.cost ?? 0) };
        break;
      case "TaskFailed":
        if (event.data.attempt === attempt) return { endedAt: event.time, chargeSeconds: 0 };
        break;
      case "TaskRetried":
        if (event.data.attempt > attempt) return { endedAt: event.time, chargeSeconds: 0 };
        break;
      case "TaskDeleted":
        // Whatever attempt it held, even one a retry took and never recorded.
        return { endedAt: event.time, chargeSeconds: 0 };
      default:
        break;
    }
  }
  return null;
}

/**
 * The user's concurrent-task slots (spec: 3 tasks in progress), decided on the account's stream by the
 * admission decider: taken before a task is created or retried (429 when none is free), given back when
 * it ends (the task-slots worker), by a delete, or when an upload ends without its task.
 */
export class TaskSlots {
  private readonly accounts: AccountCommands;

  constructor(
    private readonly store: EventStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.accounts = new AccountCommands(store);
  }

  /**
   * Takes one slot, freeing first the slots of creations and retries that died. For an upload's completion
   * (`upload`), a slot that completion took before stands, and the id of its task is returned: every
   * repeat of one completion names the same task. Otherwise `taskId` is returned.
   */
  async admit(userId: number, taskId: number, attempt: number, disk: Disk, metadata: EventMetadata, upload?: string): Promise<number> {
    const now = this.now().toISOString();
    const admit = (abandoned: number[]) =>
      this.accounts.decideOnAccount(
        userId,
        admissionDecider,
        (state) => admissionDecider.decide({ type: "AdmitTask", taskId, attempt, disk, limit: maxConcurrentTasks, abandoned, now, upload }, state),
        { metadata },
      );
    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit([]);
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      // Slots of attempts that ended but whose release was lost (its message dropped) are freed now, charged as the
      // task-slots worker would: a lost message never makes the account 429 for good.
      const freed = await this.releaseEnded(userId, metadata, 0);
      const abandoned = await this.abandoned(userId);
      if (freed.length === 0 && abandoned.length === 0) throw error;
      admitted = await admit(abandoned);
    }
    return upload === undefined ? taskId : (slotOfUpload(admitted.state, upload)?.taskId ?? taskId);
  }

  /**
   * The slot of a live session's new task, taken with its charge of `seconds` in one append: the speaker already has
   * the transcript, so the charge stands whatever becomes of the task (deleted at once, failed), and its release
   * charges nothing more (the slot is marked charged). Admitted whatever the count of tasks in progress: the speaker
   * has spoken, and the slot is held only the moment its transcript takes to finish. Should creating the task fail
   * after this, the charge stands too, for the same reason; the slot is freed as an abandoned one.
   */
  async admitLive(userId: number, taskId: number, seconds: number, metadata: EventMetadata): Promise<void> {
    const live = liveAdmission(taskId, seconds, this.now().toISOString());
    await this.accounts.decideOnAccount(userId, admissionDecider, (state) => admissionDecider.decide(live, state), { metadata });
  }

  /** Gives back the slot of this attempt of the task (nothing when it holds none). */
  async release(userId: number, taskId: number, attempt: number, metadata: EventMetadata): Promise<void> {
    await this.accounts.decideOnAccount(userId, admissionDecider, (state) => admissionDecider.decide({ type: "ReleaseTaskSlot", taskId, attempt }, state), {
      metadata,
    });
  }

  /** Gives back the slot an upload's completion took, when the upload ended without its task. */
  async releaseForUpload(userId: number, upload: string, metadata: EventMetadata): Promise<void> {
    await this.accounts.decideOnAccount(userId, admissionDecider, (state) => admissionDecider.decide({ type: "ReleaseUploadSlot", upload }, state), {
      metadata,
    });
  }

  /**
   * Frees the user's slots held by attempts that can no longer finish (endedAttempt) and ended at least `graceMs`
   * ago, each charged as its task-slots release would have been: ReleaseTaskSlot frees a slot once, so this and a
   * late worker, or several sweepers, charge once. Returns the ids of the tasks whose slot it freed.
   */
  async releaseEnded(userId: number, metadata: EventMetadata, graceMs = endedSlotGraceMs): Promise<number[]> {
    const { state } = await this.accounts.loadOnAccount(userId, admissionDecider);
    const freed: number[] = [];
    for (const { taskId, attempt } of state.inFlight.values()) {
      const { state: task } = await loadState(this.store, taskStream(taskId), taskDecider);
      // Still under way, or not begun (admission's own `abandoned` frees those): nothing to read further.
      if (task.status === "none" || (task.status === "live" && task.attempts <= attempt && isInFlight(task.state))) continue;
      const ended = endedAttempt(await this.store.readStream(taskStream(taskId)), attempt);
      const now = this.now();
      if (!ended || now.getTime() - Date.parse(ended.endedAt) < graceMs) continue;
      const charge = ended.chargeSeconds > 0 ? { seconds: ended.chargeSeconds, now: now.toISOString() } : undefined;
      const released = await this.accounts.decideOnAccount(
        userId,
        admissionDecider,
        (current) => admissionDecider.decide({ type: "ReleaseTaskSlot", taskId, attempt, charge }, current),
        { metadata },
      );
      if (released.events.length > 0) freed.push(taskId);
    }
    return freed;
  }

  /** Admitted tasks whose attempt never began: no task (its creation died), or a retry that was not recorded. */
  private async abandoned(userId: number): Promise<number[]> {
    const { state } = await this.accounts.loadOnAccount(userId, admissionDecider);
    const abandoned: number[] = [];
    for (const { taskId, attempt, admittedAt } of state.inFlight.values()) {
      if (this.now().getTime() - Date.parse(admittedAt) < abandonedAfterMs) continue;
      const { state: task } = await loadState(this.store, taskStream(taskId), taskDecider);
      if (task.status === "none" || (task.status === "live" && task.attempts < attempt)) abandoned.push(taskId);
    }
    return abandoned;
  }
}

/** The admission of a live session's task (`TaskSlots.admitLive`): attempt 1, no limit on tasks in progress, charged at once. */
export const liveAdmission = (taskId: number, seconds: number, now: string): AdmissionCommand => ({
  type: "AdmitTask",
  taskId,
  attempt: 1,
  disk: "objstore",
  limit: Number.POSITIVE_INFINITY,
  abandoned: [],
  now,
  chargeSeconds: seconds,
});
