/** The live sessions an account may hold open at once (LIVE_SESSIONS_PER_ACCOUNT), across every API process. */
import { DuplicateKeyError, type Document, type DocumentStore } from "../readmodels/port.ts";

/**
 * One of an account's N places for an open session: held by `sessionId` until `expiresAt` (ms since the epoch).
 * `recordedMs`: the audio the session had recorded when it last said (absent on a document written before it did),
 * which the account's other sessions count as spent (session-balance.ts).
 */
type SlotDocument = Document & { userId: number; slot: number; sessionId: string; expiresAt: number; recordedMs?: number };

const slotsOf = (db: DocumentStore) => db.collection<SlotDocument>("live_session_slots");

/**
 * The audio the account's open sessions other than `exceptSession` have recorded (ms), as each last renewed its slot:
 * not yet charged (a session is charged as it ends), so not yet off the balance the users read model shows.
 */
export async function recordedByOpenSessions(db: DocumentStore, userId: number, exceptSession?: string, now = Date.now()): Promise<number> {
  const open = (await slotsOf(db).find({ userId })).filter((doc) => doc.expiresAt >= now && doc.sessionId !== exceptSession);
  return open.reduce((sum, doc) => sum + Math.max(0, doc.recordedMs ?? 0), 0);
}

/** A slot not renewed for this long is free again: its session's process died (or stalled) without releasing it. */
export const defaultSessionLeaseMs = 60_000;

/**
 * Slots as leases in the read-model store's `live_session_slots` collection, one document per place
 * (`<user>:<i>`, i below the limit), taken by inserting it (a unique `_id`: of parallel claims of one place exactly
 * one lands) or by a compare-and-set on an expired one, whose single-document updates are atomic on both adapters.
 * So the limit holds under parallel claims in one process and across processes sharing the store, as the
 * leases of src/core/lease.ts do; a session renews its slot while it lives (every third of the lease), and one
 * whose process died holds it until the lease runs out. Not a read model: nothing in the log rebuilds it, and a
 * replay leaves it alone.
 */
export class LiveSessionSlots {
  constructor(
    private readonly db: DocumentStore,
    private readonly perAccount: number,
    private readonly leaseMs = defaultSessionLeaseMs,
    /** The leases' clock (ms since the epoch), which a read of the sessions' recordings judges them by too (session-balance.ts). */
    readonly now: () => number = Date.now,
  ) {}

  /** How often a session renews its slot: a third of the lease, so two renewals may fail before it is lost. */
  get renewEveryMs(): number {
    return Math.max(1, Math.floor(this.leaseMs / 3));
  }

  private get slots() {
    return slotsOf(this.db);
  }

  /** Takes a free place for the session (true), or says the account already holds its limit (false). A repeat claim is a renewal. */
  async claim(userId: number, sessionId: string): Promise<boolean> {
    if (await this.renew(userId, sessionId)) return true;
    for (let slot = 0; slot < this.perAccount; slot++) {
      if (await this.take(userId, slot, sessionId)) return true;
    }
    return false;
  }

  private async take(userId: number, slot: number, sessionId: string): Promise<boolean> {
    const now = this.now();
    const held: SlotDocument = { _id: `${userId}:${slot}`, userId, slot, sessionId, expiresAt: now + this.leaseMs, recordedMs: 0 };
    try {
      await this.slots.insertOne(held);
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    // Taken before: free again once its lease ran out (or was given back, which sets it to 0). Of two takers one wins.
    const taken = await this.slots.findOneAndUpdate(
      { _id: held._id, expiresAt: { $lt: now } },
      { $set: { sessionId, expiresAt: held.expiresAt, recordedMs: 0 } },
    );
    return taken !== null;
  }

  /**
   * Extends the session's lease, and with `recordedMs` notes the audio it has recorded so far, which the account's
   * other sessions then count as spent; false when it holds no slot (never claimed, released, or lost after it expired).
   */
  async renew(userId: number, sessionId: string, recordedMs?: number): Promise<boolean> {
    const now = this.now();
    const recorded = recordedMs === undefined ? {} : { recordedMs: Math.max(0, recordedMs) };
    const renewed = await this.slots.updateMany({ userId, sessionId }, { $set: { expiresAt: now + this.leaseMs, ...recorded } });
    return renewed.matchedCount > 0;
  }

  /** Gives the session's slot back at once (nothing when it holds none): the next claim takes it without waiting. */
  async release(userId: number, sessionId: string): Promise<void> {
    await this.slots.updateMany({ userId, sessionId }, { $set: { expiresAt: 0 } });
  }

  /** The sessions the account holds open now (for /metrics or a test). */
  async held(userId: number): Promise<number> {
    const now = this.now();
    const docs = await this.slots.find({ userId });
    return docs.filter((doc) => doc.slot < this.perAccount && doc.expiresAt >= now).length;
  }
}
