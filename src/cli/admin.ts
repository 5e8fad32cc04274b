import { bySystem } from "../core/event.ts";
import { ConfigError, loadConfig } from "../config.ts";
import { runEncryptEvents } from "./encrypt-events-command.ts";
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
import { runModelCommand, type ModelCommand } from "./model-commands.ts";
import { runEraseCommand } from "./erase-command.ts";
import { BackupRefused } from "../backup/manifest.ts";
import { logToStderr } from "../logging/logger.ts";
import { DeadLetters } from "../dead-letters/service.ts";
import type { DeadLetterDocument } from "../dead-letters/dead-letters-projection.ts";

/** The operator asked for something the data refuses (unknown email or key, a domain rule): exit 1. */
class Refused extends Error {}

type Context = { accounts: Accounts; deadLetters: DeadLetters; db: DocumentStore; metadata: EventMetadata };

async function userByEmail(accounts: Accounts, email: string): Promise<UserDocument> {
  const user = await accounts.findByEmail(email);
  if (!user) throw new Refused(`no user with email ${email}`);
  return user;
}

/** Columns padded to their widest cell; the last one is left as it is. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
}

function usersTable(users: UserDocument[]): string[] {
  return table([
    ["ID", "EMAIL", "NAME", "PLAN", "REMAINING_SECONDS"],
    ...users.map((u) => [String(u.id), u.email, u.name, u.plan, String(remainingSeconds(u.ledger))]),
  ]);
}

/** The open dead letters: a table for people (the error last, as long as it is), or NDJSON for scripts. */
function deadLetterLines(letters: DeadLetterDocument[], json: boolean): string[] {
  if (json)
    return letters.map((d) =>
      JSON.stringify({
        id: d.id,
        worker: d.worker,
        event_type: d.eventType,
        event_id: d.eventId,
        stream: d.stream,
        task_id: d.taskId,
        deliveries: d.deliveries,
        occurrences: d.occurrences,
        error: d.error,
        dead_lettered_at: d.deadLetteredAt,
      }),
    );
  if (letters.length === 0) return ["no open dead letters"];
  return table([
    ["ID", "WORKER", "EVENT", "STREAM", "TASK", "DELIVERIES", "WHEN", "ERROR"],
    ...letters.map((d) => [d.id, d.worker, d.eventType, d.stream, d.taskId === null ? "-" : String(d.taskId), String(d.deliveries), d.deadLetteredAt, d.error]),
  ]);
}

const described = (d: Pick<DeadLetterDocument, "id" | "worker" | "eventType" | "stream">) =>
  `dead letter ${d.id} (${d.worker} on ${d.eventType} of ${d.stream})`;

/** Every change goes through the account's decider as a command, like the HTTP routes' own. */
async function run(
  command: Exclude<AdminCommand, { type: "help" | "encrypt-events" | "erase" } | BackupCommand | ConfigCommand | ModelCommand>,
  { accounts, deadLetters, db, metadata }: Context,
): Promise<string[]> {
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
    case "dead-letters-list":
      return deadLetterLines(await deadLetters.open(), command.json);
    case "dead-letters-retry": {
      // The workers run it (the bus may be inside the server): what is printed is that it was asked for.
      const then = "retried: the workers handle it again (now, or when they next start)";
      if (command.id !== null) {
        const letter = (await deadLetters.open()).find((d) => d.id === command.id);
        await deadLetters.retry(command.id, metadata);
        return [`${letter ? described(letter) : `dead letter ${command.id}`} ${then}`];
      }
      const retried = await deadLetters.retryAll(metadata);
      return retried.length === 0 ? ["no open dead letters"] : retried.map((letter) => `${described(letter)} ${then}`);
    }
    case "dead-letters-drop":
      await deadLetters.drop(command.id, metadata);
      return [`dead letter ${command.id} dropped`];
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
  // Before loadConfig, like the reference: a model is fetched before the service is configured to use it.
  if (command.type === "model-pull" || command.type === "model-list") {
    const result = await runModelCommand(command);
    if (result.code === 0) for (const line of result.lines) console.log(line);
    else console.error(`admin: ${result.error}`);
    return result.code;
  }
  // Before loadConfig: the reference is for machines with nothing (or something wrong) configured yet.
  if (command.type === "config") {
    const { code, stdout, stderr } = await runConfigCommand(command);
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    return code;
  }

  const config = loadConfig();
  if (command.type === "encrypt-events") return runEncryptEvents(config);
  if (command.type === "erase") return runEraseCommand(command, config);
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
    const wrote = async (position: number) => void (written = Math.max(written, position));
    const accounts = new Accounts(store, db, wrote);
    const deadLetters = new DeadLetters(store, db, wrote);
    const metadata: EventMetadata = bySystem("operator", crypto.randomUUID());
    const lines = await run(command, { accounts, deadLetters, db, metadata });
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
