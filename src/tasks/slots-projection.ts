import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Recorded } from "../core/event.ts";
import { userIdOf } from "../accounts/events.ts";
import { admissionEventTypes, type AdmissionEvent } from "./admission.ts";

type SlotFields = { userId: number; taskId: number; attempt: number; admittedAt: string };

/**
 * The `task_slots` read model: one document per concurrent-task slot held (taken, not yet given back), so the
 * stuck-task sweeper finds the accounts whose slots to check without reading every account's stream. Only a list
 * of candidates: whether a slot is freed is decided on the account's stream (TaskSlots.releaseEnded).
 */
export type TaskSlotDocument = ProjectedDocument & SlotFields;

function slotId(event: Recorded<AdmissionEvent>): string | null {
  const userId = userIdOf(event);
  const { taskId, attempt } = event.data;
  return userId === null ? null : `${userId}:${taskId}:${attempt}`;
}

export const taskSlotsProjection: Projection<AdmissionEvent> = {
  name: "task_slots",
  collections: ["task_slots"],
  eventTypes: admissionEventTypes,
  async setup(db) {
    await db.collection("task_slots").createIndex({ admittedAt: 1 });
  },
  apply: positionGuarded<SlotFields, AdmissionEvent>({
    collection: "task_slots",
    documentId: slotId,
    evolve(_current, event) {
      if (event.type === "TaskSlotReleased") return null;
      const { taskId, attempt, admittedAt } = event.data;
      const userId = userIdOf(event);
      return userId === null ? null : { userId, taskId, attempt, admittedAt };
    },
  }),
};

/** The accounts holding a slot taken before `before` (an ISO time), at most `limit` slots looked at. */
export async function accountsHoldingSlotsSince(db: DocumentStore, before: string, limit = 1000): Promise<number[]> {
  const slots = await db.collection<TaskSlotDocument>("task_slots").find({ admittedAt: { $lt: before } }, { limit });
  return [...new Set(slots.map((slot) => slot.userId))];
}
