/**
 * What `admin restore` does to a restored copy, beyond destroying the erased scopes' keys again
 * (src/erasure/key-store-restore.ts), so a backup taken before an erasure brings nothing erased back
 * (docs/operations.md, "Backup and restore"). The CLI is the composition root: it uses the tasks', accounts' and
 * webhooks' own commands, on the copy's stores opened as the service opens them (events sealed as it seals them).
 *  1. the facts the newer log had: `TaskDeleted` for an erased task still live in the copy, `AccountErased` (with its
 *     email claim released and webhook endpoints deleted) for an erased account still registered;
 *  2. the erased scopes' blobs (src/backup/erased-blobs.ts), the media paths found in the backup's read models, and
 *     the fields of events stored in the clear before the log encrypted them (`encrypt-events`, written erased);
 *  3. the read models built again from the log into a new file (the copied one held names, transcript words in the
 *     search index, emails and password hashes, snapshots and kept answers), keeping only the relay's checkpoint: the
 *     restored service's workers then get the compensating events (its task-slots worker frees the deleted tasks' slots).
 */
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { openBlobStore, openEventStore } from "../adapters.ts";
import { bySystem, type EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { EmbeddedDocumentStore } from "../readmodels/embedded.ts";
import type { Document } from "../readmodels/port.ts";
import { TaskCommands } from "../tasks/commands.ts";
import { TranscriptStore } from "../tasks/transcripts.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { releaseClaims } from "../accounts/claim-release.ts";
import type { CredentialDocument } from "../accounts/credentials-projection.ts";
import { deleteAllEndpoints } from "../webhooks/endpoint-removal.ts";
import { decideAccountErasure } from "../erasure/account-erasure-decider.ts";
import type { Erasure } from "../erasure/data-keys.ts";
import { openDataKeyStore } from "../erasure/open-data-keys.ts";
import { encryptStoredEvents } from "../erasure/encrypt-events.ts";
import { removeErasedBlobs } from "../backup/erased-blobs.ts";
import { dataFiles } from "../backup/data-dir.ts";
import { noCompensation, type Compensation, type RestoredCopy } from "../backup/restore.ts";
import { allProjections } from "../../projections/index.ts";
import { catchUpReadModels } from "./catch-up.ts";

/** The erased ids of one kind (`task`, `account`) in the ledger. */
function idsOf(ledger: readonly Erasure[], kind: string): number[] {
  return ledger.flatMap((erasure) => {
    const match = new RegExp(`^${kind}-([1-9]\\d{0,15})$`).exec(erasure.scope);
    return match ? [Number(match[1])] : [];
  });
}

type Credentials = { tokens: string[]; sessions: string[] };
type Remembered = { mediaKeys: Map<number, string>; emails: Map<number, string>; credentials: Map<number, Credentials> };

/**
 * What only the backup's read models still say in the clear: erased tasks' media paths, erased accounts' emails (their
 * claims are released) and live tokens and sessions (revoked by events of their own, as an erasure revokes them).
 */
async function remembered(readModels: string, tasks: readonly number[], accounts: readonly number[]): Promise<Remembered> {
  const found: Remembered = { mediaKeys: new Map(), emails: new Map(), credentials: new Map() };
  if (!existsSync(readModels)) return found;
  const db = new EmbeddedDocumentStore(readModels);
  try {
    for (const task of await db.collection<Document & { id: number; path?: unknown }>("tasks").find({ id: { $in: [...tasks] } }))
      if (typeof task.path === "string") found.mediaKeys.set(task.id, task.path);
    for (const user of await db.collection<Document & { id: number; email?: unknown }>("users").find({ id: { $in: [...accounts] } }))
      if (typeof user.email === "string") found.emails.set(user.id, user.email);
    for (const credential of await db.collection<CredentialDocument>("credentials").find({ userId: { $in: [...accounts] } })) {
      const held = found.credentials.get(credential.userId) ?? { tokens: [], sessions: [] };
      if (credential.kind === "token") held.tokens.push(credential.credentialId);
      if (credential.kind === "session") held.sessions.push(credential.credentialId);
      found.credentials.set(credential.userId, held);
    }
  } finally {
    await db.close();
  }
  return found;
}

/** Appends the compensating facts; returns how many tasks and accounts needed them. */
async function appendCompensations(store: EventStore, ledger: readonly Erasure[], { emails, credentials }: Remembered) {
  const metadata = (): EventMetadata => bySystem("restore", crypto.randomUUID());
  const taskCommands = new TaskCommands(store);
  let tasks = 0;
  for (const taskId of idsOf(ledger, "task")) {
    if ((await taskCommands.state(taskId)).state.status !== "live") continue;
    await taskCommands.run(taskId, { type: "DeleteTask" }, { metadata: metadata() });
    tasks += 1;
  }
  const accountCommands = new AccountCommands(store);
  let accounts = 0;
  for (const userId of idsOf(ledger, "account")) {
    if ((await accountCommands.state(userId)).state.status !== "registered") continue;
    const now = new Date().toISOString();
    const { tokens, sessions } = credentials.get(userId) ?? { tokens: [], sessions: [] };
    const erasure = { type: "EraseAccount", tokens, sessions, by: "operator", now } as const;
    const context = { metadata: metadata() };
    await accountCommands.decide(userId, (state) => decideAccountErasure(erasure, state), context);
    await deleteAllEndpoints(store, userId, context.metadata);
    await releaseClaims(store, userId, emails.get(userId) ?? null, [], context.metadata);
    accounts += 1;
  }
  return { tasks, accounts };
}

/** The read models being built again, under this name until the restore seals them and moves them into place. */
export const rebuiltReadModels = "readmodels.rebuilt.sqlite";

/** Builds the read models again from the copy's log, into a new file (rebuiltReadModels); the copied one is deleted. */
async function rebuildReadModels(dir: string, store: EventStore, config: Config): Promise<void> {
  const path = join(dir, dataFiles.readModels);
  const copied = existsSync(path) ? new EmbeddedDocumentStore(path) : null;
  const relay = (await copied?.collection<Document & { position?: number }>("checkpoints").findOne({ _id: "relay" })) ?? null;
  await copied?.close();
  for (const suffix of ["", "-wal", "-shm"]) await rm(`${path}${suffix}`, { force: true });
  const db = new EmbeddedDocumentStore(join(dir, rebuiltReadModels));
  const blobs = openBlobStore({ ...config, dataDir: dir }, "restore");
  try {
    // The relay goes on from where the backup had it (the workers then see the compensating events); its lease's epoch is gone.
    if (typeof relay?.position === "number") await db.collection("checkpoints").insertOne({ _id: "relay", position: relay.position });
    await catchUpReadModels(store, db, allProjections, { context: { transcripts: new TranscriptStore(blobs) } });
  } finally {
    await blobs.close();
    await db.close();
  }
}

/**
 * Applies the ledger's erasures to the restored copy in `copy.dir` (not yet in use) beyond its keys. Does nothing
 * when none touches the copy: no key destroyed again, no fact to add, no blob to remove. Run in a process of its own
 * (restore-compensation-process.ts): bun:sqlite keeps a closed database's file open while its statements live, and
 * the restore can seal the files only once no connection is left.
 */
export async function compensateCopy(config: Config, copy: RestoredCopy): Promise<Compensation> {
  const { dir, ledger } = copy;
  if (ledger.length === 0) return noCompensation;
  const known = await remembered(join(dir, dataFiles.readModels), idsOf(ledger, "task"), idsOf(ledger, "account"));
  const local = { ...config, dataDir: dir, eventStoreUrl: null, mongodbUrl: null };
  const dataKeys = openDataKeyStore(local);
  const store = await openEventStore(local, dataKeys);
  try {
    const appended = await appendCompensations(store, ledger, known);
    const blobsRemoved = await removeErasedBlobs(join(dir, dataFiles.blobs), ledger, known.mediaKeys);
    const touched = copy.keysDestroyed > 0 || appended.tasks + appended.accounts > 0 || blobsRemoved > 0;
    // Events stored in the clear before the log encrypted them (an old backup's) hold erased scopes' fields as text:
    // `encrypt-events` writes those as their erased values, and encrypts the rest, before the read models fold them.
    if (touched) await encryptStoredEvents(local, dataKeys);
    if (touched) await rebuildReadModels(dir, store, local);
    return { tasksDeleted: appended.tasks, accountsErased: appended.accounts, blobsRemoved, readModelsRebuilt: touched };
  } finally {
    await store.close();
    await dataKeys.close();
  }
}
