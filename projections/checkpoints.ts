import { DuplicateKeyError, type Document, type DocumentStore, type Filter } from "../src/readmodels/port.ts";
import { LeaseFencedError, type LeaseFence } from "../src/core/lease.ts";

/**
 * `beat`: counted up while an event takes long to apply (runner.ts), so waiters elsewhere see work under way.
 * `epoch`: that of the lease its last writer held (absent when none wrote under a lease yet). `position` is
 * absent from a checkpoint claimed (below) before its first save.
 */
type CheckpointDocument = Document & { position?: number; version?: number; beat?: number; epoch?: number };

export type CheckpointEntry = { position: number; version: number; beat: number };

/** The checkpoint of a projection (the relay's is `relay`). */
export const checkpointId = (projectionName: string) => `projection:${projectionName}`;

/**
 * Where each subscriber (projection, relay) remembers how far into the log it got.
 *
 * Made with a `fence` (the lease its writer holds: the projections' or the relay's), every write is conditional
 * on the lease's epoch, in one atomic write on both adapters: it goes through only while the checkpoint's
 * epoch is at most the writer's, and then carries the writer's. So once a new holder has claimed a checkpoint
 * (it does on start: reading through a fence claims), a holder that lost the lease without knowing it (paused
 * past it) is refused with LeaseFencedError, and stops, instead of moving the checkpoint back or past events
 * the new holder has not folded. Without a fence (tests, tools alone on their store) writes are as they were,
 * and leave the epoch as they find it.
 */
export class Checkpoints {
  constructor(
    private readonly db: DocumentStore,
    private readonly fence: LeaseFence | null = null,
  ) {}

  /** The same checkpoints, written under `fence`. */
  fencedBy(fence: LeaseFence): Checkpoints {
    return new Checkpoints(this.db, fence);
  }

  private get collection() {
    return this.db.collection<CheckpointDocument>("checkpoints");
  }

  async load(name: string): Promise<number> {
    return (await this.entry(name)).position;
  }

  /**
   * The position, the version of the read model's shape it was saved with (1 when none was given), and the
   * beat of the event being applied after it (0 when none takes long). Under a fence, read by claiming it.
   */
  async entry(name: string): Promise<CheckpointEntry> {
    const saved = await this.claim(name);
    return { position: saved?.position ?? 0, version: saved?.version ?? 1, beat: saved?.beat ?? 0 };
  }

  /** The entries of several checkpoints in one read (absent ones read as position 0). */
  async entries(names: readonly string[]): Promise<Map<string, { position: number; beat: number }>> {
    const saved = await this.collection.find({ _id: { $in: names } });
    const byName = new Map(saved.map((doc) => [doc._id, { position: doc.position ?? 0, beat: doc.beat ?? 0 }]));
    return new Map(names.map((name) => [name, byName.get(name) ?? { position: 0, beat: 0 }]));
  }

  async save(name: string, position: number, version = 1, beat = 0): Promise<void> {
    const fields = { position, version, ...(beat > 0 ? { beat } : {}) };
    if (!this.fence) {
      await this.collection.updateOne({ _id: name }, { $set: fields, ...(beat > 0 ? {} : { $unset: { beat: "" } }) }, { upsert: true });
      return;
    }
    const epoch = this.writerEpoch(name);
    await this.fenced(name, epoch, (filter) => this.collection.replaceOne(filter, { _id: name, ...fields, epoch }, { upsert: true }));
  }

  /**
   * Marks the checkpoint with this writer's epoch, changing nothing else, and returns it as it is now (made
   * when there was none): from now on writers of earlier epochs are refused. A writer claims before it writes
   * anything else (runner.ts on start, rebuild.ts before a swap). Without a fence, only reads it.
   */
  async claim(name: string): Promise<CheckpointDocument | null> {
    if (!this.fence) return this.collection.findOne({ _id: name });
    const epoch = this.writerEpoch(name);
    return this.fenced(name, epoch, (filter) => this.collection.findOneAndUpdate(filter, { $set: { epoch } }, { upsert: true }));
  }

  private writerEpoch(name: string): number {
    const epoch = this.fence?.epoch() ?? null;
    if (epoch === null) throw new LeaseFencedError(`checkpoint ${name}`, null, null);
    return epoch;
  }

  /**
   * Runs `write` (an upsert) on the checkpoint only if its epoch is at most `epoch`: where it is higher, the
   * upsert's insert meets the existing `_id` and fails, so the test and the write are one atomic step on both
   * stores. A checkpoint saved before epochs existed is given epoch 0 first (once, by compare-and-set).
   */
  private async fenced<R>(name: string, epoch: number, write: (filter: Filter) => Promise<R>): Promise<R> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write({ _id: name, epoch: { $lte: epoch } });
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error;
      }
      const saved = await this.collection.findOne({ _id: name });
      const current = typeof saved?.epoch === "number" ? saved.epoch : null;
      if (current !== null && current > epoch) throw new LeaseFencedError(`checkpoint ${name}`, epoch, current);
      // Deleted, or from before epochs, meanwhile: the next try settles it.
      if (saved && current === null) await this.collection.updateOne({ _id: name, epoch: null }, { $set: { epoch: 0 } });
      if (attempt >= 3) throw new Error(`checkpoint ${name}: still changing under epoch ${epoch} after ${attempt} attempts`);
    }
  }
}
