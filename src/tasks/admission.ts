import { assertNever, type Decider } from "../core/decider.ts";
import { ForbiddenError, NotFoundError, TooManyRequestsError } from "../core/errors.ts";
import { plans, type PlanKey } from "../accounts/plans.ts";
import { emptyLedger, evolveLedger, remainingSeconds, splitCharge, type BalanceLedger } from "../accounts/balance.ts";
import type { UserEvent } from "../accounts/events.ts";
import type { Disk } from "./events.ts";

/**
 * The concurrent-task limit is decided on the account's stream `user-<id>`: every admission appends to
 * it with the revision it read, so 20 parallel creates meet there and exactly `limit` get in.
 *
 * A finished task's charge is decided here too, as its slot is given back: the slot exists once per
 * attempt and is released once, so the task is charged once whatever redeliveries its completion sees,
 * without the account remembering every task it ever charged. SecondsCharged is an account event
 * (accounts/events.ts); this decider folds the ledger so the charge never takes the balance below zero.
 */
export type AdmissionEvent =
  /** `upload`: the upload whose completion takes this slot; its task id is then the one every repeat of that completion uses. */
  | { type: "TaskAdmitted"; data: { taskId: number; attempt: number; admittedAt: string; upload?: string } }
  | { type: "TaskSlotReleased"; data: { taskId: number; attempt: number } };

export const admissionEventTypes: readonly AdmissionEvent["type"][] = ["TaskAdmitted", "TaskSlotReleased"];

type Charged = Extract<UserEvent, { type: "SecondsCharged" }>;
type Folded =
  | AdmissionEvent
  | Charged
  | Extract<UserEvent, { type: "UserRegistered" | "PlanChanged" | "AllowanceGranted" | "SecondsToppedUp" | "AccountErased" }>;

export type AdmissionCommand =
  /**
   * A slot is held by one attempt of a task (`attempt` 1 at creation, then one more per retry), so a
   * late "attempt 1 failed" can never free the slot the retry (attempt 2) holds.
   * `abandoned`: admitted tasks the caller found never began the attempt they were admitted for (their creation or retry died); their slots are freed first.
   * `chargeSeconds`: charged as the slot is taken, in the same append (a live session's recording, whose transcript the
   * speaker already has: nothing that happens to the task later can undo it); its release then charges nothing more.
   */
  | {
      type: "AdmitTask";
      taskId: number;
      attempt: number;
      disk: Disk;
      limit: number;
      abandoned: number[];
      now: string;
      upload?: string;
      chargeSeconds?: number;
    }
  /** `charge`: the finished task's cost in seconds, taken from the balance as the slot is freed. */
  | { type: "ReleaseTaskSlot"; taskId: number; attempt: number; charge?: { seconds: number; now: string } }
  /** Frees the slot an upload's completion took, when the upload ended (aborted, expired) without its task. */
  | { type: "ReleaseUploadSlot"; upload: string };

/** `charged`: a charge for this task is already in the log (written before charges moved here). */
export type Slot = { taskId: number; attempt: number; admittedAt: string; charged: boolean; upload?: string };
/** `erased`: the account was erased (src/erasure): no task is admitted for it again, while slots held are still given back. */
export type AdmissionState = { exists: boolean; erased: boolean; plan: PlanKey; ledger: BalanceLedger; inFlight: ReadonlyMap<string, Slot> };

const slotKey = (taskId: number, attempt: number) => `${taskId}#${attempt}`;

export const maxConcurrentTasks = 3;

export const admissionDecider: Decider<AdmissionState, AdmissionCommand, AdmissionEvent | Charged> = {
  snapshot: { name: "admission", version: 4 },
  initialState: () => ({ exists: false, erased: false, plan: "free", ledger: emptyLedger, inFlight: new Map() }),
  evolve(state, event) {
    const e = event as Folded;
    switch (e.type) {
      case "UserRegistered":
        return { ...state, exists: true };
      case "AccountErased":
        return { ...state, erased: true };
      case "PlanChanged":
        return { ...state, plan: e.data.plan };
      case "AllowanceGranted":
      case "SecondsToppedUp":
        return { ...state, ledger: evolveLedger(state.ledger, e) };
      case "SecondsCharged": {
        const inFlight = new Map(state.inFlight);
        for (const [key, slot] of inFlight) if (slot.taskId === e.data.taskId) inFlight.set(key, { ...slot, charged: true });
        return { ...state, ledger: evolveLedger(state.ledger, e), inFlight };
      }
      case "TaskAdmitted": {
        const { taskId, attempt, admittedAt, upload } = e.data;
        const slot: Slot = upload === undefined ? { taskId, attempt, admittedAt, charged: false } : { taskId, attempt, admittedAt, charged: false, upload };
        return { ...state, inFlight: new Map([...state.inFlight, [slotKey(taskId, attempt), slot]]) };
      }
      case "TaskSlotReleased": {
        const inFlight = new Map(state.inFlight);
        inFlight.delete(slotKey(e.data.taskId, e.data.attempt));
        return { ...state, inFlight };
      }
      default:
        return state;
    }
  },
  decide(command, state) {
    if (!state.exists) throw new NotFoundError("User not found.");
    switch (command.type) {
      case "AdmitTask": {
        // A creation racing the account's erasure: the account is gone (its tasks are being erased; none may be made).
        if (state.erased) throw new NotFoundError("User not found.");
        if (state.inFlight.has(slotKey(command.taskId, command.attempt))) return [];
        // A repeat of an upload's completion (in parallel, or after one that died): the slot it took already stands.
        if (command.upload !== undefined && slotOfUpload(state, command.upload)) return [];
        if (command.disk === "videolink" && !plans[state.plan].videoLinks) {
          throw new ForbiddenError("Video links need a Pay-as-you-go, Pro or Max plan.");
        }
        const released: AdmissionEvent[] = [...state.inFlight.values()]
          .filter((slot) => command.abandoned.includes(slot.taskId))
          .map(({ taskId, attempt }) => ({ type: "TaskSlotReleased", data: { taskId, attempt } }));
        if (state.inFlight.size - released.length >= command.limit) {
          throw new TooManyRequestsError(`You already have ${command.limit} tasks in progress; wait for one to finish.`);
        }
        const admitted: Extract<AdmissionEvent, { type: "TaskAdmitted" }>["data"] = {
          taskId: command.taskId,
          attempt: command.attempt,
          admittedAt: command.now,
        };
        if (command.upload !== undefined) admitted.upload = command.upload;
        const charged = command.chargeSeconds ? [charge(state, command.taskId, { seconds: command.chargeSeconds, now: command.now })] : [];
        return [...released, { type: "TaskAdmitted", data: admitted }, ...charged];
      }
      case "ReleaseTaskSlot": {
        const { taskId, attempt } = command;
        const slot = state.inFlight.get(slotKey(taskId, attempt));
        if (!slot) return [];
        const released: AdmissionEvent = { type: "TaskSlotReleased", data: { taskId, attempt } };
        if (!command.charge || command.charge.seconds <= 0 || slot.charged) return [released];
        return [released, charge(state, taskId, command.charge)];
      }
      case "ReleaseUploadSlot": {
        const slot = slotOfUpload(state, command.upload);
        return slot ? [{ type: "TaskSlotReleased", data: { taskId: slot.taskId, attempt: slot.attempt } }] : [];
      }
      default:
        return assertNever(command);
    }
  },
};

/** The task's charge of `seconds`, never more than the balance holds (it never goes below zero). */
function charge(state: AdmissionState, taskId: number, { seconds, now }: { seconds: number; now: string }): Charged {
  const taken = Math.max(0, Math.min(seconds, remainingSeconds(state.ledger)));
  return { type: "SecondsCharged", data: { taskId, seconds: taken, ...splitCharge(state.ledger, taken), chargedAt: now } };
}

/** The slot an upload's completion holds, if any. */
export function slotOfUpload(state: AdmissionState, upload: string): Slot | undefined {
  for (const slot of state.inFlight.values()) if (slot.upload === upload) return slot;
  return undefined;
}
