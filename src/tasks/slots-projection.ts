import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { RecordedEvent } from "../core/event.ts";
import type { AdmissionEvent } from "./admission.ts";

type SlotFields = { userId: number; taskId: number; attempt: number; admittedAt: string };

/**
 * The `task_slots` read model: one document per concurrent-task slot held (taken, not yet given back), so the
 * stuck-task sweeper finds the accounts whose slots to check without reading every account's stream. Only a list
 * of candidates: whether a slot is freed is decided on the account's stream (TaskSlots.releaseEnded).
 */
export type TaskSlotDocument = ProjectedDocument & SlotFields;

const userIdOf = (streamName: string) => (/^user-(\d+)$/.exec(streamName) ? Number(streamName.slice("user-".length)) : null);

function slotId(recorded: RecordedEvent): string | null {
  const userId = userIdOf(recorded.streamName);
  const { taskId, attempt } = (recorded as unknown as AdmissionEvent).data;
  return userId === null ? null : `${userId}:${taskId}:${attempt}`;
}

export const taskSlotsProjection: Projection = {
  name: "task_slots",
  collections: ["task_slots"],
  eventTypes: ["TaskAdmitted", "TaskSlotReleased"] satisfies AdmissionEvent["type"][],
  async setup(db) {
    await db.collection("task_slots").createIndex({ admittedAt: 1 });
  },
  apply: positionGuarded<SlotFields>({
    collection: "task_slots",
    documentId: slotId,
    evolve(_current, recorded) {
      const event = recorded as unknown as AdmissionEvent;
      if (event.type === "TaskSlotReleased") return null;
      const { taskId, attempt, admittedAt } = event.data;
      return { userId: userIdOf(recorded.streamName)!, taskId, attempt, admittedAt };
    },
  }),
};

/** The accounts holding a slot taken before `before` (an ISO time), at most `limit` slots looked at. */
export async function accountsHoldingSlotsSince(db: DocumentStore, before: string, limit = 1000): Promise<number[]> {
  const slots = await db.collection<TaskSlotDocument>("task_slots").find({ admittedAt: { $lt: before } }, { limit });
  return [...new Set(slots.map((slot) => slot.userId))];
}
