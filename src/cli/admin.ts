import { bySystem } from "../core/event.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { openBlobStore, openDocumentStore, openEventStore } from "../adapters.ts";
import { Accounts } from "../accounts/service.ts";
import { newApiKey } from "../accounts/secrets.ts";
import { remainingSeconds } from "../accounts/balance.ts";
import { plans } from "../accounts/plans.ts";
import { DomainError, ForbiddenError } from "../core/errors.ts";
import type { EventMetadata } from "../core/event.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { allProjections } from "../../projections/index.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { CredentialDocument } from "../accounts/credentials-projection.ts";
import { catchUpReadModels } from "./catch-up.ts";
import { TranscriptStore } from "../tasks/transcripts.ts";
import { adminUsage, parseAdminCommand, UsageError, type AdminCommand } from "./admin-args.ts";
import { runBackupCommand, type BackupCommand } from "./backup-commands.ts";
import { runConfigCommand, type ConfigCommand } from "./config-command.ts";
import { BackupRefused } from "../backup/manifest.ts";
import { logToStderr } from "../logging/logger.ts";

/** The operator asked for something the data refuses (unknown email or key, a domain rule): exit 1. */
class Refused extends Error {}

type Context = { accounts: Accounts; db: DocumentStore; metadata: EventMetadata };

async function userByEmail(accounts: Accounts, email: string): Promise<UserDocument> {
  const user = await accounts.findByEmail(email);
  if (!user) throw new Refused(`no user with email ${email}`);
  return user;
}

function usersTable(users: UserDocument[]): string[] {
  const rows = [
    ["ID", "EMAIL", "NAME", "PLAN", "REMAINING_SECONDS"],
    ...users.map((u) => [String(u.id), u.email, u.name, u.plan, String(remainingSeconds(u.ledger))]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
}

/** Every change goes through the account's decider as a command, like the HTTP routes' own. */
async function run(command: Exclude<AdminCommand, { type: "help" } | BackupCommand | ConfigCommand>, { accounts, db, metadata }: Context): Promise<string[]> {
  switch (command.type) {
    case "plan": {
      const user = await userByEmail(accounts, command.email);
      await accounts.changePlan(user.id, command.plan, command.interval, "operator", null, metadata);
      const billed = command.interval === "none" ? "" : `, billed per ${command.interval}`;
      return [`${user.email} (user ${user.id}): plan ${user.plan} -> ${command.plan}${billed}`];
    }
    case "grant": {
      const user = await userByEmail(accounts, command.email);
      await accounts.topUp(user.id, command.seconds, "operator", metadata);
      return [`${user.email} (user ${user.id}): granted ${command.seconds} top-up seconds, ${remainingSeconds(user.ledger) + command.seconds} remaining`];
    }
    case "apikey-create": {
      const user = await userByEmail(accounts, command.email);
      // Not Accounts.createApiKey: that one records the key's owner as the acting user, and here the operator acts.
      const { keyId, key, keyHash, prefix } = newApiKey();
      try {
        await accounts.execute(user.id, { type: "CreateApiKey", keyId, name: command.name, keyHash, prefix, now: new Date().toISOString() }, metadata);
      } catch (error) {
        if (error instanceof ForbiddenError)
          throw new Refused(`cannot create an API key for ${user.email}: the ${plans[user.plan].name} plan has no API access`);
        throw error;
      }
      return [`API key "${command.name}" created for ${user.email} (user ${user.id})`, `id: ${keyId}`, key];
    }
    case "apikey-revoke": {
      const credential = await db.collection<CredentialDocument>("credentials").findOne({ credentialId: command.keyId, kind: "api_key" });
      if (!credential) throw new Refused(`no API key with id ${command.keyId}`);
      await accounts.revokeApiKey(credential.userId, command.keyId, metadata.correlationId, metadata);
      return [`API key ${command.keyId} of user ${credential.userId} revoked`];
    }
    case "users": {
      const users = await db.collection<UserDocument>("users").find({}, { sort: { id: 1 } });
      if (!command.json) return usersTable(users);
      return users.map((u) => JSON.stringify({ id: u.id, email: u.email, name: u.name, plan: u.plan, remaining_seconds: remainingSeconds(u.ledger) }));
    }
  }
}

async function main(argv: string[]): Promise<number> {
  // Its stdout is what it prints for people and scripts: log lines from the code it runs go to stderr.
  logToStderr();
  let command: AdminCommand;
  try {
    command = parseAdminCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`admin: ${error.message}\n\n${adminUsage}`);
    return 2;
  }
  if (command.type === "help") {
    console.log(adminUsage);
    return 0;
  }
  // Before loadConfig: the reference is for machines with nothing (or something wrong) configured yet.
  if (command.type === "config") {
    const { code, stdout, stderr } = await runConfigCommand(command);
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    return code;
  }

  const config = loadConfig();
  if (command.type === "backup" || command.type === "restore") {
    try {
      for (const line of await runBackupCommand(command, config)) console.log(line);
      return 0;
    } catch (error) {
      if (!(error instanceof BackupRefused)) throw error;
      console.error(`admin: ${error.message}`);
      return 1;
    }
  }
  const store = await openEventStore(config);
  const db = await openDocumentStore(config);
  // The search read model reads transcripts, which are blobs.
  const blobs = openBlobStore(config);
  const context = { transcripts: new TranscriptStore(blobs) };
  try {
    // Lookups read the read models, which may lag the log when no server is running (or none ever ran).
    await catchUpReadModels(store, db, allProjections, { context });
    // Read-your-writes for the operator: a change is reported once the read models (the running server's,
    // or ours when none runs) show it, so the key printed is accepted by the very next request.
    let written = 0;
    const accounts = new Accounts(store, db, async (position) => void (written = Math.max(written, position)));
    const metadata: EventMetadata = bySystem("operator", crypto.randomUUID());
    const lines = await run(command, { accounts, db, metadata });
    if (written > 0) await catchUpReadModels(store, db, allProjections, { position: written, timeoutMs: 30_000, context });
    for (const line of lines) console.log(line);
    return 0;
  } catch (error) {
    if (!(error instanceof Refused || error instanceof DomainError)) throw error;
    console.error(`admin: ${error.message}`);
    return 1;
  } finally {
    await blobs.close();
    await db.close();
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConfigError) for (const problem of error.problems) console.error(`admin: configuration: ${problem}`);
    else console.error(error);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
