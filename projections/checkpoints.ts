import type { Document, DocumentStore } from "../src/readmodels/port.ts";

type CheckpointDocument = Document & { position: number; version?: number };

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

  /** The position, and the version of the read model's shape it was saved with (1 when none was given). */
  async entry(name: string): Promise<{ position: number; version: number }> {
    const saved = await this.collection.findOne({ _id: name });
    return { position: saved?.position ?? 0, version: saved?.version ?? 1 };
  }

  async save(name: string, position: number, version = 1): Promise<void> {
    await this.collection.replaceOne({ _id: name }, { _id: name, position, version }, { upsert: true });
  }
}
