import { assertNever, type Decider } from "../core/decider.ts";
import { ForbiddenError, NotFoundError, TooManyRequestsError } from "../core/errors.ts";
import { plans, type PlanKey } from "../billing/plans.ts";
import type { Disk } from "./events.ts";

/**
 * The concurrent-task limit is decided on the account's stream `user-<id>`: every admission appends to
 * it with the revision it read, so 20 parallel creates meet there and exactly `limit` get in.
 */
export type AdmissionEvent =
  | { type: "TaskAdmitted"; data: { taskId: number; attempt: number; admittedAt: string } }
  | { type: "TaskSlotReleased"; data: { taskId: number; attempt: number } };

type Folded =
  | AdmissionEvent
  | { type: "UserRegistered"; data: unknown }
  | { type: "PlanChanged"; data: { plan: PlanKey } };

export type AdmissionCommand =
  /**
   * A slot is held by one attempt of a task (`attempt` 1 at creation, then one more per retry), so a
   * late "attempt 1 failed" can never free the slot the retry (attempt 2) holds.
   * `abandoned`: admitted tasks the caller found were never created (their creation died); their slots are freed first.
   */
  | { type: "AdmitTask"; taskId: number; attempt: number; disk: Disk; limit: number; abandoned: number[]; now: string }
  | { type: "ReleaseTaskSlot"; taskId: number; attempt: number };

export type Slot = { taskId: number; attempt: number; admittedAt: string };
export type AdmissionState = { exists: boolean; plan: PlanKey; inFlight: ReadonlyMap<string, Slot> };

const slotKey = (taskId: number, attempt: number) => `${taskId}#${attempt}`;

export const maxConcurrentTasks = 3;

export const admissionDecider: Decider<AdmissionState, AdmissionCommand, AdmissionEvent> = {
  initialState: () => ({ exists: false, plan: "free", inFlight: new Map() }),
  evolve(state, event) {
    const e = event as Folded;
    switch (e.type) {
      case "UserRegistered":
        return { ...state, exists: true };
      case "PlanChanged":
        return { ...state, plan: e.data.plan };
      case "TaskAdmitted": {
        const { taskId, attempt, admittedAt } = e.data;
        return { ...state, inFlight: new Map([...state.inFlight, [slotKey(taskId, attempt), { taskId, attempt, admittedAt }]]) };
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
        if (state.inFlight.has(slotKey(command.taskId, command.attempt))) return [];
        if (command.disk === "videolink" && !plans[state.plan].videoLinks) {
          throw new ForbiddenError("Video links need a Pay-as-you-go, Pro or Max plan.");
        }
        const released: AdmissionEvent[] = [...state.inFlight.values()]
          .filter((slot) => command.abandoned.includes(slot.taskId))
          .map(({ taskId, attempt }) => ({ type: "TaskSlotReleased", data: { taskId, attempt } }));
        if (state.inFlight.size - released.length >= command.limit) {
          throw new TooManyRequestsError(`You already have ${command.limit} tasks in progress; wait for one to finish.`);
        }
        return [...released, { type: "TaskAdmitted", data: { taskId: command.taskId, attempt: command.attempt, admittedAt: command.now } }];
      }
      case "ReleaseTaskSlot": {
        const { taskId, attempt } = command;
        return state.inFlight.has(slotKey(taskId, attempt)) ? [{ type: "TaskSlotReleased", data: { taskId, attempt } }] : [];
      }
      default:
        return assertNever(command);
    }
  },
};
