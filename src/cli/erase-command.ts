import { bySystem } from "../core/event.ts";
import { NotFoundError } from "../core/errors.ts";
import type { Config } from "../config.ts";
import { openBlobStore, openDocumentStore, openEventStore } from "../adapters.ts";
import { openDataKeyStore } from "../erasure/open-data-keys.ts";
import { AccountErasure, type ErasureReport } from "../erasure/account-erasure.ts";
import { Accounts } from "../accounts/service.ts";
import { tasksService } from "../tasks/index.ts";
import { TranscriptStore } from "../tasks/transcripts.ts";
import { allProjections } from "../../projections/index.ts";
import { catchUpReadModels } from "./catch-up.ts";

/** `erase <email>|<user-id>`: the account's id, given or looked up by email. */
export type EraseCommand = { type: "erase"; account: string };

function reportLines(email: string, report: ErasureReport): string[] {
  const counted = (count: number, what: string) => `  ${String(count).padStart(6)} ${what}`;
  return [
    `${email} (user ${report.userId}): erased`,
    counted(report.tasks, "tasks deleted, with their media, transcripts and exports"),
    counted(report.apiKeys, "API keys revoked"),
    counted(report.tokens, "access tokens revoked"),
    counted(report.sessions, "web app sessions ended"),
    counted(report.webhooks, "webhook endpoints deleted"),
    counted(report.folders, "folders deleted"),
    counted(report.notifications, "notifications deleted"),
    counted(report.avatars, "avatar images deleted"),
    counted(report.keptAnswers, "answers kept for Idempotency-Key retries deleted"),
    counted(report.snapshots, "snapshots of its streams deleted"),
    counted(report.dataKeys, "data keys destroyed"),
    "  the email address is free to register again; the balance's facts stay in the log without a name",
  ];
}

/**
 * Erases an account as `DELETE /api/user` does (src/erasure/account-erasure.ts), without asking: the operator acts.
 * An erasure that was interrupted is carried on by giving the account's id (its email no longer finds it). Exit 1 when
 * no such account exists.
 */
export async function runEraseCommand(command: EraseCommand, config: Config): Promise<number> {
  // One key store for the log and the erasure: the keys it destroys leave this process's cache at once.
  const dataKeys = openDataKeyStore(config);
  const store = await openEventStore(config, dataKeys);
  const db = await openDocumentStore(config);
  const blobs = openBlobStore(config);
  const transcripts = new TranscriptStore(blobs);
  try {
    await catchUpReadModels(store, db, allProjections, { context: { transcripts } });
    let written = 0;
    const wrote = async (position: number) => void (written = Math.max(written, position));
    const byId = /^[1-9]\d{0,15}$/.test(command.account);
    const user = byId
      ? { id: Number(command.account), email: `account ${command.account}` }
      : await new Accounts(store, db, wrote).findByEmail(command.account);
    if (!user) {
      console.error(`admin: no user with email ${command.account}`);
      return 1;
    }
    const tasks = await tasksService(store, db, wrote, transcripts);
    const erasure = new AccountErasure({ store, db, blobs, transcripts, waitFor: wrote, tasks, dataKeys });
    const report = await erasure.erase(user.id, "operator", bySystem("operator", crypto.randomUUID())).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (!report) {
      console.error(`admin: no user ${command.account}`);
      return 1;
    }
    if (written > 0) await catchUpReadModels(store, db, allProjections, { position: written, timeoutMs: 30_000, context: { transcripts } });
    for (const line of reportLines(user.email, report)) console.log(line);
    return 0;
  } finally {
    await blobs.close();
    await db.close();
    await store.close();
    await dataKeys.close();
  }
}
