import type { EventStore } from "../../src/core/event-store.ts";
import { handle } from "../../src/core/command-handler.ts";
import { admissionDecider } from "../../src/tasks/admission.ts";
import { userStream } from "../../src/accounts/events.ts";

/**
 * Charges `seconds` to an account the way a finished task is charged: its slot is taken, then given
 * back with the charge. Returns the log position of the charge (null when nothing was appended).
 */
export async function chargeSeconds(store: EventStore, userId: number, seconds: number, taskId = -Math.floor(Math.random() * 1e9)): Promise<number | null> {
  const context = { metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "test" } };
  const now = new Date().toISOString();
  await handle(
    store,
    userStream(userId),
    admissionDecider,
    (state) => admissionDecider.decide({ type: "AdmitTask", taskId, attempt: 1, disk: "objstore", limit: 1_000_000, abandoned: [], now }, state),
    context,
  );
  const { position } = await handle(
    store,
    userStream(userId),
    admissionDecider,
    (state) => admissionDecider.decide({ type: "ReleaseTaskSlot", taskId, attempt: 1, charge: { seconds, now } }, state),
    context,
  );
  return position;
}
