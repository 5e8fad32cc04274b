import { DuplicateKeyError, type Document, type DocumentStore } from "../readmodels/port.ts";

/**
 * The `idempotency_keys` collection: one record per (user, key), the first request's fingerprint and, once
 * it is answered, its answer. Operational state like leases and rate-limit counters, not a read model: no
 * event makes it and a replay of the log neither builds nor touches it. Shared by every API process
 * through the read-model store, whose insert of an existing `_id` fails atomically on both adapters: of two
 * replicas racing with one key, one reserves it and the other finds it taken.
 */
export const idempotencyCollection = "idempotency_keys";

/** The answer kept for a replay: the status, the headers that describe the body, and the body's exact text. */
export type StoredAnswer = { status: number; headers: Record<string, string>; body: string };

type KeyRecord = Document & {
  userId: number;
  fingerprint: string;
  /** Whose reservation this is: a completion or release by anyone else (a request taken over as abandoned) changes nothing. */
  token: string;
  state: "in_flight" | "done";
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  answer?: StoredAnswer;
};

export type Reservation = { id: string; token: string };

export type ReserveOutcome =
  | { kind: "reserved"; reservation: Reservation }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "in_flight" }
  | { kind: "mismatch" };

export type IdempotencyKeysOptions = {
  /** How long a key and its answer are kept (default 24 hours). */
  retainMs?: number;
  /**
   * A reservation still in flight this long after it was made is taken to be abandoned (its process died
   * mid-request) and may be taken over (default 5 minutes: longer than the slowest request, the complete
   * of a 2 GiB upload).
   */
  abandonAfterMs?: number;
  now?: () => number;
};

export class IdempotencyKeys {
  readonly retainMs: number;
  readonly abandonAfterMs: number;
  private readonly now: () => number;

  constructor(
    private readonly db: DocumentStore,
    options: IdempotencyKeysOptions = {},
  ) {
    this.retainMs = options.retainMs ?? 24 * 3600_000;
    this.abandonAfterMs = options.abandonAfterMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  private get records() {
    return this.db.collection<KeyRecord>(idempotencyCollection);
  }

  /**
   * Reserves `key` for this request, or says what the key already holds. `key` is hashed into the record's
   * id, so any 255 characters make a short, safe `_id`, and the store never holds the key itself.
   */
  async reserve(userId: number, key: string, fingerprint: string): Promise<ReserveOutcome> {
    const id = `${userId}:${new Bun.CryptoHasher("sha256").update(key).digest("hex")}`;
    // A few rounds at most: each lost race means another request changed the record in between.
    for (let round = 0; round < 5; round++) {
      const now = this.now();
      const token = crypto.randomUUID();
      const fresh: KeyRecord = { _id: id, userId, fingerprint, token, state: "in_flight", createdAt: now, expiresAt: now + this.retainMs };
      try {
        await this.records.insertOne(fresh);
        return { kind: "reserved", reservation: { id, token } };
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
      const existing = await this.records.findOne({ _id: id });
      if (existing === null) continue; // released or swept meanwhile: try the insert again
      const abandoned = existing.state === "in_flight" && existing.createdAt <= now - this.abandonAfterMs;
      if (existing.expiresAt <= now || abandoned) {
        // Expired records are ignored on read (the cleanup job deletes them later): take this one over,
        // by compare-and-set on its token, so only one of several requests doing the same wins.
        const { _id, ...rest } = fresh;
        const taken = await this.records.findOneAndUpdate({ _id: id, token: existing.token }, { $set: rest, $unset: { answer: "" } });
        if (taken !== null) return { kind: "reserved", reservation: { id, token } };
        continue;
      }
      if (existing.fingerprint !== fingerprint) return { kind: "mismatch" };
      if (existing.state === "in_flight" || existing.answer === undefined) return { kind: "in_flight" };
      return { kind: "replay", answer: existing.answer };
    }
    return { kind: "in_flight" };
  }

  /** Keeps the answer for the key's later requests; nothing when the reservation was taken over meanwhile. */
  async complete(reservation: Reservation, answer: StoredAnswer): Promise<void> {
    await this.records.updateOne({ _id: reservation.id, token: reservation.token }, { $set: { state: "done", answer } });
  }

  /** Frees the key (the request failed on our side): the next request with it is processed afresh. */
  async release(reservation: Reservation): Promise<void> {
    await this.records.deleteOne({ _id: reservation.id, token: reservation.token });
  }

  /** Deletes what has expired; returns how many. */
  async sweep(): Promise<number> {
    await this.records.createIndex({ expiresAt: 1 });
    const { deletedCount } = await this.records.deleteMany({ expiresAt: { $lte: this.now() } });
    return deletedCount;
  }
}
