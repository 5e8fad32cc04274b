import { isPlanKey, planKeys, type BillingInterval, type PlanKey } from "../accounts/plans.ts";
import { parseArgs } from "./args.ts";
import type { BackupCommand } from "./backup-commands.ts";
import type { ConfigCommand } from "./config-command.ts";
import type { ModelCommand } from "./model-commands.ts";
import type { EraseCommand } from "./erase-command.ts";
import { whisperModelNamed, whisperModels } from "../transcription/whisper-models.ts";

export const adminUsage = `usage: bun run admin <command> [options]

Operator commands on accounts, dead letters and whisper models. Uses the server's configuration
(DATA_DIR, EVENTSTORE_URL, MONGODB_URL) and works while the server runs: changes reach it within
a second.

  plan <email> <${planKeys.join("|")}> [--interval month|year]
                              change the account's plan (paid plans bill monthly unless --interval year)
  grant <email> <seconds>     add top-up seconds (a positive whole number; they never expire)
  apikey create <email> [--name NAME]
                              create an API key (plans with API access only); prints the key alone
                              on the last line, and its id on the line before as "id: <key-id>"
  apikey revoke <key-id>      revoke an API key
  erase <email>|<user-id>     erase the account and everything in it, as DELETE /api/user does, without
                              asking; prints what it erased (an interrupted erasure: run it again
                              with the user id it printed)
  users [--json]              list accounts: id, email, name, plan, remaining seconds
                              (a table, or NDJSON with --json)
  dead-letters list [--json]  messages a worker could not handle in all its deliveries, set aside:
                              id, worker, event, stream, task, deliveries, when, error (a table,
                              or NDJSON with --json)
  dead-letters retry <id>|--all
                              run the worker's handler on the message again (on the running
                              workers, or when they next start); a failure lists it again
  dead-letters drop <id>      set it aside for good: no longer listed, never run again
  backup <dir>                a consistent backup of the embedded profile's DATA_DIR, taken while
                              the server runs, into <dir> (missing or empty)
  restore <dir>               restore a backup into DATA_DIR (missing or empty but for its keys/),
                              re-applying the erasures its key store records, and with
                              --erasures-from <path> those of a newer backup or key store
  encrypt-events              encrypt, in place, the personal fields of events stored in the clear
                              before the log encrypted them (embedded profile only; idempotent)
  model pull <name>           download a whisper.cpp model into DATA_DIR/models/whisper, verified
                              against its pinned SHA-256 (a cut download resumes; progress on
                              stderr; WHISPER_MODEL_BASE_URL names a mirror); then
                              WHISPER_MODEL=<name> uses it
  model list                  the models that can be pulled (tiny.en, base.en, small.en, medium.en,
                              tiny, base, small, medium, large-v3, large-v3-turbo) and which are here
  config [--markdown|--json]  the configuration reference: every environment variable, its type,
                              default and meaning (needs no DATA_DIR and no server)
  config --check              validate this environment as start-up does and print the values in
                              effect (secrets as "(set)"); exit 2 with every problem otherwise
  help                        this text

Exit codes: 0 done, 1 refused (unknown email, key or dead letter, a dead letter not open, plan
without API access, a non-empty target, an incomplete or corrupt backup, the cluster profile, a
model download that failed or was not the pinned file), 2 bad usage or configuration.`;

export type AdminCommand =
  | { type: "help" }
  | { type: "plan"; email: string; plan: PlanKey; interval: BillingInterval }
  | { type: "grant"; email: string; seconds: number }
  | { type: "apikey-create"; email: string; name: string }
  | { type: "apikey-revoke"; keyId: string }
  | { type: "users"; json: boolean }
  | EraseCommand
  | { type: "encrypt-events" }
  | DeadLettersCommand
  | BackupCommand
  | ConfigCommand
  | ModelCommand;

/** `dead-letters list|retry|drop`; `id` null: every open one (`retry --all`). */
export type DeadLettersCommand =
  | { type: "dead-letters-list"; json: boolean }
  | { type: "dead-letters-retry"; id: string | null }
  | { type: "dead-letters-drop"; id: string };

/** Wrong words or options: the CLI prints this with the usage text and exits 2. */
export class UsageError extends Error {}

function expectWords(words: string[], count: number, shape: string): void {
  if (words.length !== count) throw new UsageError(`expected: ${shape}`);
}

function expectOptions(options: Map<string, string[]>, allowed: string[]): void {
  for (const name of options.keys()) if (!allowed.includes(name)) throw new UsageError(`unknown option --${name}`);
}

function lastOption(options: Map<string, string[]>, name: string): string | undefined {
  return options.get(name)?.at(-1);
}

/** Free and pay-as-you-go have no billing period; paid subscriptions bill monthly unless told otherwise. */
function intervalFor(plan: PlanKey, raw: string | undefined): BillingInterval {
  if (plan === "free" || plan === "payg") {
    if (raw !== undefined) throw new UsageError(`--interval does not apply to the ${plan} plan`);
    return "none";
  }
  if (raw === undefined || raw === "month" || raw === "year") return raw ?? "month";
  throw new UsageError(`--interval must be month or year, got "${raw}"`);
}

/** Parses the words after `admin` into a command, or throws UsageError; touches no store. */
export function parseAdminCommand(argv: string[]): AdminCommand {
  // Flags take no value: taken out first so `--json users` does not read "users" as the flag's value.
  const flags = new Set<string>(argv.filter((arg) => ["--json", "--help", "--markdown", "--check", "--all"].includes(arg)));
  const { options, words } = parseArgs(argv.filter((arg) => !flags.has(arg)));
  for (const flag of flags) options.set(flag.slice(2), ["true"]);
  const [name, ...rest] = words;
  if (options.has("help") || name === "help") return { type: "help" };
  switch (name) {
    case "plan": {
      expectOptions(options, ["interval"]);
      expectWords(rest, 2, "plan <email> <plan>");
      const [email, plan] = rest as [string, string];
      if (!isPlanKey(plan)) throw new UsageError(`unknown plan "${plan}" (${planKeys.join(", ")})`);
      return { type: "plan", email, plan, interval: intervalFor(plan, lastOption(options, "interval")) };
    }
    case "grant": {
      expectOptions(options, []);
      expectWords(rest, 2, "grant <email> <seconds>");
      const [email, raw] = rest as [string, string];
      const seconds = Number(raw);
      if (!/^[1-9]\d*$/.test(raw) || !Number.isSafeInteger(seconds)) throw new UsageError(`seconds must be a positive whole number, got "${raw}"`);
      return { type: "grant", email, seconds };
    }
    case "apikey": {
      const [action, ...args] = rest;
      if (action === "create") {
        expectOptions(options, ["name"]);
        expectWords(args, 1, "apikey create <email>");
        const keyName = lastOption(options, "name")?.trim() || "Operator key";
        return { type: "apikey-create", email: args[0]!, name: keyName.slice(0, 255) };
      }
      if (action === "revoke") {
        expectOptions(options, []);
        expectWords(args, 1, "apikey revoke <key-id>");
        return { type: "apikey-revoke", keyId: args[0]! };
      }
      throw new UsageError(action === undefined ? "apikey needs create or revoke" : `unknown apikey command "${action}"`);
    }
    case "erase":
      expectOptions(options, []);
      expectWords(rest, 1, "erase <email>|<user-id>");
      return { type: "erase", account: rest[0]! };
    case "users":
      expectOptions(options, ["json"]);
      expectWords(rest, 0, "users [--json]");
      return { type: "users", json: options.has("json") };
    case "dead-letters":
      return deadLettersCommand(rest, options);
    case "backup":
      expectOptions(options, []);
      expectWords(rest, 1, "backup <dir>");
      return { type: name, dir: rest[0]! };
    case "restore": {
      expectOptions(options, ["erasures-from"]);
      expectWords(rest, 1, "restore <dir> [--erasures-from <path>]");
      const erasuresFrom = lastOption(options, "erasures-from");
      return { type: name, dir: rest[0]!, ...(erasuresFrom !== undefined && { erasuresFrom }) };
    }
    case "encrypt-events":
      expectOptions(options, []);
      expectWords(rest, 0, "encrypt-events");
      return { type: "encrypt-events" };
    case "model":
      expectOptions(options, []);
      return modelCommand(rest);
    case "config": {
      expectOptions(options, ["markdown", "json", "check"]);
      expectWords(rest, 0, "config [--markdown|--json|--check]");
      const formats = (["markdown", "json", "check"] as const).filter((format) => options.has(format));
      if (formats.length > 1) throw new UsageError("config takes one of --markdown, --json, --check");
      return { type: "config", format: formats[0] ?? "text" };
    }
    case undefined:
      throw new UsageError("missing command");
    default:
      throw new UsageError(`unknown command "${name}"`);
  }
}

function deadLettersCommand([action, ...args]: string[], options: Map<string, string[]>): DeadLettersCommand {
  switch (action) {
    case "list":
      expectOptions(options, ["json"]);
      expectWords(args, 0, "dead-letters list [--json]");
      return { type: "dead-letters-list", json: options.has("json") };
    case "retry":
      expectOptions(options, ["all"]);
      if (options.has("all")) {
        expectWords(args, 0, "dead-letters retry --all (no id with it)");
        return { type: "dead-letters-retry", id: null };
      }
      expectWords(args, 1, "dead-letters retry <id>|--all");
      return { type: "dead-letters-retry", id: args[0]! };
    case "drop":
      expectOptions(options, []);
      expectWords(args, 1, "dead-letters drop <id>");
      return { type: "dead-letters-drop", id: args[0]! };
    case undefined:
      throw new UsageError("dead-letters needs list, retry or drop");
    default:
      throw new UsageError(`unknown dead-letters command "${action}"`);
  }
}

function modelCommand([action, ...args]: string[]): ModelCommand {
  if (action === "list") {
    expectWords(args, 0, "model list");
    return { type: "model-list" };
  }
  if (action === "pull") {
    expectWords(args, 1, "model pull <name>");
    const name = args[0]!;
    if (!whisperModelNamed(name)) throw new UsageError(`unknown model "${name}" (${whisperModels.map((m) => m.name).join(", ")})`);
    return { type: "model-pull", name };
  }
  throw new UsageError(action === undefined ? "model needs pull or list" : `unknown model command "${action}"`);
}
