import type { Document, DocumentStore } from "../src/readmodels/port.ts";

type CheckpointDocument = Document & { position: number };

/** Where each subscriber (projection, relay) remembers how far into the log it got. */
export class Checkpoints {
  constructor(private readonly db: DocumentStore) {}

  private get collection() {
    return this.db.collection<CheckpointDocument>("checkpoints");
  }

  async load(name: string): Promise<number> {
    return (await this.collection.findOne({ _id: name }))?.position ?? 0;
  }

  async save(name: string, position: number): Promise<void> {
    await this.collection.replaceOne({ _id: name }, { _id: name, position }, { upsert: true });
  }

  async remove(name: string): Promise<void> {
    await this.collection.deleteOne({ _id: name });
  }
}
