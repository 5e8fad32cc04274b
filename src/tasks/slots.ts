import type { EventStore } from "../core/event-store.ts";
import type { EventMetadata } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { TooManyRequestsError } from "../core/errors.ts";
import { loadState } from "../core/state-cache.ts";
import { userStream } from "../accounts/events.ts";
import { admissionDecider, maxConcurrentTasks, slotOfUpload } from "./admission.ts";
import { taskDecider } from "./decider.ts";
import { taskStream, type Disk } from "./events.ts";

/** A slot whose attempt has not begun this long after it was taken belongs to a creation or retry that died. */
const abandonedAfterMs = 60_000;

/**
 * The user's concurrent-task slots (spec: 3 tasks in progress), decided on the account's stream by the
 * admission decider: taken before a task is created or retried (429 when none is free), given back when
 * it ends (the task-slots worker), by a delete, or when an upload ends without its task.
 */
export class TaskSlots {
  constructor(
    private readonly store: EventStore,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /**
   * Takes one slot, freeing first the slots of creations and retries that died. For an upload's completion
   * (`upload`), a slot that completion took before stands, and the id of its task is returned: every
   * repeat of one completion names the same task. Otherwise `taskId` is returned.
   */
  async admit(userId: number, taskId: number, attempt: number, disk: Disk, metadata: EventMetadata, upload?: string): Promise<number> {
    const now = this.now().toISOString();
    const admit = (abandoned: number[]) =>
      handle(
        this.store,
        userStream(userId),
        admissionDecider,
        (state) => admissionDecider.decide({ type: "AdmitTask", taskId, attempt, disk, limit: maxConcurrentTasks, abandoned, now, upload }, state),
        { metadata },
      );
    let admitted: Awaited<ReturnType<typeof admit>>;
    try {
      admitted = await admit([]);
    } catch (error) {
      if (!(error instanceof TooManyRequestsError)) throw error;
      const abandoned = await this.abandoned(userId);
      if (abandoned.length === 0) throw error;
      admitted = await admit(abandoned);
    }
    return upload === undefined ? taskId : (slotOfUpload(admitted.state, upload)?.taskId ?? taskId);
  }

  /** Gives back the slot of this attempt of the task (nothing when it holds none). */
  async release(userId: number, taskId: number, attempt: number, metadata: EventMetadata): Promise<void> {
    await handle(this.store, userStream(userId), admissionDecider, (state) => admissionDecider.decide({ type: "ReleaseTaskSlot", taskId, attempt }, state), {
      metadata,
    });
  }

  /** Gives back the slot an upload's completion took, when the upload ended without its task. */
  async releaseForUpload(userId: number, upload: string, metadata: EventMetadata): Promise<void> {
    await handle(this.store, userStream(userId), admissionDecider, (state) => admissionDecider.decide({ type: "ReleaseUploadSlot", upload }, state), {
      metadata,
    });
  }

  /** Admitted tasks whose attempt never began: no task (its creation died), or a retry that was not recorded. */
  private async abandoned(userId: number): Promise<number[]> {
    const { state } = await loadState(this.store, userStream(userId), admissionDecider);
    const abandoned: number[] = [];
    for (const { taskId, attempt, admittedAt } of state.inFlight.values()) {
      if (this.now().getTime() - Date.parse(admittedAt) < abandonedAfterMs) continue;
      const { state: task } = await loadState(this.store, taskStream(taskId), taskDecider);
      if (task.status === "none" || (task.status === "live" && task.attempts < attempt)) abandoned.push(taskId);
    }
    return abandoned;
  }
}
