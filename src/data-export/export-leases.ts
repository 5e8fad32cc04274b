import { DuplicateKeyError, type Document, type DocumentStore } from "../readmodels/port.ts";

type LeaseDocument = Document & { holder: string; expiresAt: number };

/** A held lease: renewed on its own while the export runs, given back when it ends. */
export type ExportLease = { release(): Promise<void> };

/** How long a lease outlives its last renewal: an export whose process died frees its account this long after. */
export const leaseMs = 120_000;

/**
 * One data export at a time per account, across every API process: a document per account in the read-model store
 * (MongoDB in the cluster, so replicas see each other's), taken by an insert, which only one request can win. A lease
 * left by a process that died expires `leaseMs` after its last renewal and is then taken over by a compare-and-set on
 * its expiry. Not a projection's collection: nothing rebuilds or replays it.
 */
export class ExportLeases {
  constructor(
    private readonly db: DocumentStore,
    private readonly now: () => number = Date.now,
  ) {}

  private get leases() {
    return this.db.collection<LeaseDocument>("data_export_leases");
  }

  /** The account's lease, or null while another export of it holds one. */
  async take(userId: number): Promise<ExportLease | null> {
    const _id = `user-${userId}`;
    const holder = crypto.randomUUID();
    try {
      await this.leases.insertOne({ _id, holder, expiresAt: this.now() + leaseMs });
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      // Held, unless its holder stopped renewing it: then the first to set a new expiry takes it.
      const taken = await this.leases.findOneAndUpdate({ _id, expiresAt: { $lt: this.now() } }, { $set: { holder, expiresAt: this.now() + leaseMs } });
      if (taken?.holder !== holder) return null;
    }
    return this.held(_id, holder);
  }

  private held(_id: string, holder: string): ExportLease {
    const renewal = setInterval(() => {
      this.leases.updateOne({ _id, holder }, { $set: { expiresAt: this.now() + leaseMs } }).catch(() => {});
    }, leaseMs / 4);
    renewal.unref?.();
    let released: Promise<void> | null = null;
    return {
      release: () => {
        clearInterval(renewal);
        released ??= this.leases.deleteOne({ _id, holder }).then(() => {});
        return released;
      },
    };
  }
}
