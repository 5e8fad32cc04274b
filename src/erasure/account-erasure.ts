import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { NotFoundError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { isValidBlobKey, type BlobStore } from "../blobs/port.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { releaseClaims } from "../accounts/claim-release.ts";
import type { CredentialDocument } from "../accounts/credentials-projection.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import { deleteAllEndpoints } from "../webhooks/endpoint-removal.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { accountScope } from "./key-scopes.ts";
import { decideAccountErasure, type ErasedBy } from "./account-erasure-decider.ts";
import { holdingsOf } from "./account-erasure-holdings.ts";
import { accountTaskIds, eraseAccountTasks, tasksDeletedBy } from "./account-erasure-tasks.ts";
import { deleteSnapshots, forgetKeptAnswers } from "./account-erasure-leftovers.ts";
import { InlineTaskErasure } from "./inline-task-erasure.ts";
import { forgetDecryptedFields } from "./decrypted-fields.ts";

/** What the part of an erasure after `AccountErased` removed, counted (each run counts what it found left). */
export type ErasureRemainder = {
  tasks: number;
  webhooks: number;
  avatars: number;
  keptAnswers: number;
  snapshots: number;
  dataKeys: number;
};

/**
 * What an erasure removed, counted: what `bun run admin erase` prints. `tasks` counts every task deleted in the
 * erasure's correlation, by it or by the AccountErased worker beside it; the other remainders count what it found left.
 */
export type ErasureReport = ErasureRemainder & {
  userId: number;
  apiKeys: number;
  tokens: number;
  sessions: number;
  folders: number;
  notifications: number;
};

const nothingLeft: ErasureRemainder = { tasks: 0, webhooks: 0, avatars: 0, keptAnswers: 0, snapshots: 0, dataKeys: 0 };

export type AccountErasureParts = {
  store: EventStore;
  db: DocumentStore;
  blobs: BlobStore;
  transcripts: TranscriptStore;
  waitFor: WaitForProjections;
  /** The tasks' commands and slots: each task is deleted by its own command and its slot given back. */
  tasks: Pick<Tasks, "commands" | "slots">;
  /** The data-key store (src/erasure/data-keys.ts): each task's key goes with its files, the account's keys last. */
  dataKeys: Pick<DataKeyStore, "eraseAccount" | "erase" | "find">;
  now?: () => Date;
};

/**
 * The erasures this process is finishing, by account: a second `finish` of one (the AccountErased worker beside the
 * request that recorded it) waits for the first, then finds it done, rather than repeat its work beside it.
 */
const finishing = new Map<number, Promise<unknown>>();

/** The read models whose documents the account's own events change: waited for, so its credentials are refused at once. */
const accountReadModels = ["users", "credentials", "folders", "notifications"];

/**
 * Erases an account (`DELETE /api/user`, `bun run admin erase`): first `AccountErased` on its stream, with every
 * credential revoked (it cannot sign in or call the API from then on, and its profile, folders and notifications leave
 * the read models), then the rest (`finish`).
 */
export class AccountErasure {
  private readonly accounts: AccountCommands;
  private readonly inline: InlineTaskErasure;
  private readonly now: () => Date;

  constructor(private readonly parts: AccountErasureParts) {
    this.accounts = new AccountCommands(parts.store);
    const { store, blobs, db: documents, transcripts, dataKeys: keys } = parts;
    this.inline = new InlineTaskErasure({ store, blobs, documents, transcripts, keys });
    this.now = parts.now ?? (() => new Date());
  }

  async erase(userId: number, by: ErasedBy, metadata: EventMetadata): Promise<ErasureReport> {
    const { db, waitFor } = this.parts;
    if (!(await this.accounts.exists(userId))) throw new NotFoundError("User not found.");
    // Counted before the read models forget them.
    const folders = await db.collection("folders").countDocuments({ userId });
    const notifications = await db.collection("notifications").countDocuments({ userId });
    const credentials = await db.collection<CredentialDocument>("credentials").find({ userId });
    const ids = (kind: CredentialDocument["kind"]) => credentials.filter((c) => c.kind === kind).map((c) => c.credentialId);
    const now = this.now().toISOString();
    const command = { type: "EraseAccount", tokens: ids("token"), sessions: ids("session"), by, now } as const;
    const recorded = await this.accounts.decide(userId, (state) => decideAccountErasure(command, state), { metadata });
    if (recorded.position !== null) await waitFor(recorded.position, accountReadModels);
    const revoked = (type: string) => recorded.events.filter((event) => event.type === type).length;
    const remainder = await this.finish(userId, metadata);
    const erasedNow = recorded.events.length > 0;
    const taskIds = await accountTaskIds(db, userId, await this.accounts.history(userId));
    return {
      ...remainder,
      // The AccountErased worker may have deleted some or all of them, in this erasure's correlation.
      tasks: await tasksDeletedBy(this.parts.tasks, userId, taskIds, metadata.correlationId),
      userId,
      apiKeys: revoked("ApiKeyRevoked"),
      tokens: revoked("AccessTokenRevoked"),
      sessions: revoked("SessionEnded"),
      folders: erasedNow ? folders : 0,
      notifications: erasedNow ? notifications : 0,
    };
  }

  /**
   * What an erased account holds beyond its stream, removed: its tasks (each deleted by its own command, then erased as
   * the task-erasure worker erases a deleted task: media, transcripts, exports and chunk results removed, its keys
   * destroyed), webhook endpoints, the claims on its email and identities (free for a new account), its avatars, the
   * answers kept for its Idempotency-Key retries, the snapshots of its streams, and last its data keys (its personal
   * fields in the log read `"[erased]"` from then on; no key is made for it again). The balance's facts stay in the
   * log without anyone to name.
   *
   * Run by the request and by the AccountErased worker (account-erasure-worker.ts), which carries on where a request
   * that failed stopped: every step checks what is left, and an account whose key is destroyed is done. In one process
   * the second waits for the first (`finishing`); in the cluster the worker runs in another, and `newestFirst` has it
   * take the tasks from the other end, so that beside a request still at work the two meet rather than repeat each
   * other's work.
   */
  async finish(userId: number, metadata: EventMetadata, options: { newestFirst?: boolean } = {}): Promise<ErasureRemainder> {
    for (let running = finishing.get(userId); running; running = finishing.get(userId)) await running.catch(() => undefined);
    const run = this.finishNow(userId, metadata, options);
    finishing.set(userId, run);
    try {
      return await run;
    } finally {
      if (finishing.get(userId) === run) finishing.delete(userId);
    }
  }

  private async finishNow(userId: number, metadata: EventMetadata, { newestFirst = false }): Promise<ErasureRemainder> {
    const { store, db, dataKeys } = this.parts;
    if ((await dataKeys.find(accountScope(userId))) === "erased") return nothingLeft;
    const history = await this.accounts.history(userId);
    const ids = await accountTaskIds(db, userId, history);
    if (newestFirst) ids.reverse();
    const erased = await eraseAccountTasks({ tasks: this.parts.tasks, keys: dataKeys, inline: this.inline }, userId, ids, metadata);
    const webhooks = await deleteAllEndpoints(store, userId, metadata);
    const holdings = holdingsOf(history);
    await releaseClaims(store, userId, holdings.email, holdings.identities, metadata);
    const avatars = await this.deleteAvatars(holdings.avatarKeys);
    const keptAnswers = await forgetKeptAnswers(db, userId);
    const streams = new Set([...erased.streams, ...history.slice(0, 1).map((event) => event.streamName)]);
    const snapshots = await deleteSnapshots(db, streams);
    const destroyed = await dataKeys.eraseAccount(userId);
    // A tombstone on the account's own scope even where it never had a key: no key is made for the account again.
    await dataKeys.erase(accountScope(userId), userId);
    // This process's copy of what the destroyed keys had decrypted goes with them.
    await forgetDecryptedFields(dataKeys);
    return { tasks: erased.deleted, webhooks, avatars, keptAnswers, snapshots, dataKeys: destroyed };
  }

  /** The avatars it uploaded; deleting one that is gone already changes nothing. */
  private async deleteAvatars(keys: readonly string[]): Promise<number> {
    const valid = [...new Set(keys)].filter((key) => isValidBlobKey(key) && key.startsWith("avatars/"));
    for (const key of valid) await this.parts.blobs.delete(key);
    return valid.length;
  }
}
