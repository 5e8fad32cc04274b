import type { Document, DocumentStore } from "../src/readmodels/port.ts";

/** `beat`: counted up while an event takes long to apply (runner.ts), so waiters elsewhere see work under way. */
type CheckpointDocument = Document & { position: number; version?: number; beat?: number };

/** The checkpoint of a projection (the relay's is `relay`). */
export const checkpointId = (projectionName: string) => `projection:${projectionName}`;

/** Where each subscriber (projection, relay) remembers how far into the log it got. */
export class Checkpoints {
  constructor(private readonly db: DocumentStore) {}

  private get collection() {
    return this.db.collection<CheckpointDocument>("checkpoints");
  }

  async load(name: string): Promise<number> {
    return (await this.entry(name)).position;
  }

  /**
   * The position, the version of the read model's shape it was saved with (1 when none was given), and the
   * beat of the event being applied after it (0 when none takes long).
   */
  async entry(name: string): Promise<{ position: number; version: number; beat: number }> {
    const saved = await this.collection.findOne({ _id: name });
    return { position: saved?.position ?? 0, version: saved?.version ?? 1, beat: saved?.beat ?? 0 };
  }

  /** The entries of several checkpoints in one read (absent ones read as position 0). */
  async entries(names: readonly string[]): Promise<Map<string, { position: number; beat: number }>> {
    const saved = await this.collection.find({ _id: { $in: names } });
    const byName = new Map(saved.map((doc) => [doc._id, { position: doc.position, beat: doc.beat ?? 0 }]));
    return new Map(names.map((name) => [name, byName.get(name) ?? { position: 0, beat: 0 }]));
  }

  async save(name: string, position: number, version = 1, beat = 0): Promise<void> {
    await this.collection.replaceOne({ _id: name }, { _id: name, position, version, ...(beat > 0 ? { beat } : {}) }, { upsert: true });
  }
}
