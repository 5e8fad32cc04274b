import { TooManyRequestsError } from "../core/errors.ts";
import { logger } from "../logging/logger.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Tasks } from "../tasks/service.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import { accountFiles } from "./account-files.ts";
import { ExportLeases } from "./export-leases.ts";
import { archiveName } from "./layout.ts";
import { zipStream } from "./zip-stream.ts";

const log = logger("data-export");

export type DataExportDependencies = {
  db: DocumentStore;
  blobs: BlobStore;
  tasks: Tasks;
  /** The account as `GET /api/user` answers it (the accounts capability's view). */
  profileOf(user: UserDocument): Promise<unknown>;
  now?: () => Date;
};

/** An export on its way: the archive's name and its bytes, made as they are read. */
export type AccountArchive = { fileName: string; body: ReadableStream<Uint8Array> };

export const busyMessage =
  "A copy of this account's data is already being downloaded. One download at a time: try again once it has finished (or was cancelled).";

/**
 * `GET /api/user/export`: a zip of everything the account holds (account-files.ts), streamed. One at a time per account
 * (export-leases.ts), so one account cannot keep the service reading its media for several downloads at once; the
 * lease is given back when the archive ends, is cancelled by the client, or fails.
 */
export class DataExports {
  private readonly leases: ExportLeases;
  private readonly now: () => Date;

  constructor(private readonly deps: DataExportDependencies) {
    this.now = deps.now ?? (() => new Date());
    this.leases = new ExportLeases(deps.db, () => this.now().getTime());
  }

  async open(user: UserDocument): Promise<AccountArchive> {
    const lease = await this.leases.take(user.id);
    if (!lease) throw new TooManyRequestsError(busyMessage, 60);
    const exportedAt = this.now();
    try {
      const profile = await this.deps.profileOf(user);
      const files = accountFiles(this.deps, user.id, profile, exportedAt);
      const started = performance.now();
      const body = zipStream(files, (error) => {
        void lease.release();
        const ms = Math.round(performance.now() - started);
        if (error === null) log.info({ userId: user.id, ms }, "data export sent");
        else log.warn({ userId: user.id, ms, err: error }, "data export stopped before its end (client gone, or a read failed)");
      });
      return { fileName: archiveName(exportedAt), body };
    } catch (error) {
      await lease.release();
      throw error;
    }
  }
}
