/**
 * Dead letters: a message a worker could not handle in all its deliveries while its own dependencies answered,
 * set aside for the operator instead of dropped. One stream per (worker, event) pair, `deadletter-<id>`, whose id
 * is derived from the pair: recording the same pair again finds its stream, so it is never listed twice.
 *
 * The events name the message by reference (the event's id, type, stream and revision), never by copy: a retry
 * reads the event as stored and runs the named worker's handler on it again.
 */

/** Which worker failed on which stored event. */
export type DeadLetterReference = { deadLetterId: string; worker: string; eventId: string; eventType: string; stream: string; revision: number };

/** The task a dead-lettered event was about (it is on `task-<id>`), whose owner is told. */
export type AffectedTask = { taskId: number; userId: number; name: string | null };

export type DeadLetterEvent =
  /**
   * `deliveries`: how many the message had; `error`: why the last one failed (scrubbed, bounded); `occurrence`:
   * 1 the first time, 2 when a retry failed again, and so on; `task`: null unless the event is on a task's stream.
   */
  | {
      type: "MessageDeadLettered";
      data: DeadLetterReference & { deliveries: number; error: string; occurrence: number; task: AffectedTask | null; at: string };
    }
  /** The operator asked for the message to be handled again; the `dead-letter-redrive` worker runs the worker's handler. */
  | { type: "DeadLetterRetried"; data: DeadLetterReference & { at: string } }
  /** The retried message was handled: nothing is left to do. */
  | { type: "DeadLetterResolved"; data: { deadLetterId: string; at: string } }
  /** The operator set it aside for good: it is no longer listed and never runs again. */
  | { type: "DeadLetterDropped"; data: { deadLetterId: string; at: string } };

export const deadLetterEventTypes: readonly DeadLetterEvent["type"][] = ["MessageDeadLettered", "DeadLetterRetried", "DeadLetterResolved", "DeadLetterDropped"];

export const deadLetterStream = (deadLetterId: string) => `deadletter-${deadLetterId}`;

/**
 * The id of the dead letter of `worker` on the event `eventId`: the first 16 hex digits of their SHA-256, short
 * enough to type in `bun run admin dead-letters retry <id>`, and the same however often the pair fails.
 */
export function deadLetterIdOf(worker: string, eventId: string): string {
  return new Bun.CryptoHasher("sha256").update(`${worker}\n${eventId}`).digest("hex").slice(0, 16);
}

/** Ids are hex: anything else the operator types names no dead letter (and no other stream). */
export const isDeadLetterId = (id: string) => /^[0-9a-f]{16}$/.test(id);
