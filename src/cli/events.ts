import { loadConfig } from "../config.ts";
import { openEventStore, signingSecret } from "../adapters.ts";
import type { RecordedEvent } from "../core/event.ts";
import { parseArgs } from "./args.ts";
import { eventFilter, FilterError, matchesFilter } from "./event-filter.ts";
import { eventLine, exportedEvent, flatLine } from "./event-export.ts";
import { logToStderr } from "../logging/logger.ts";

const synopsis =
  "usage: bun run events [--stream NAME] [--type TYPE[,TYPE]] [--since TIME] [--until TIME] [--after POSITION] " +
  "[--limit N] [--follow] [--flat] [--include-secrets]";

const usage = `${synopsis}

Prints the event log as NDJSON, one event a line, oldest first:
{"position","streamName","revision","id","type","time","data","metadata"}
(each line described by clients/events/scribe-events.schema.json). Secrets (password, token and key
hashes) read "[redacted]" and e-mail addresses and social-login subjects are pseudonymised. Personal fields
whose key was destroyed (an erased task or account) read "[erased]" ([] or null), listed in the line's "erased".
  --stream           only this stream, e.g. task-42 or user-7
  --type             only these event types (repeat or comma-separate)
  --since            events recorded at or after this ISO 8601 time
  --until            events recorded before this ISO 8601 time
  --after            only events after this global position
  --limit            stop after N events
  --follow           keep printing new events as they are appended (Ctrl-C to stop)
  --flat             one flat object a line with the same typed columns on every line (for DuckDB's read_ndjson):
                     position, time, type, stream, category, revision, event_id, user_id, task_id, task_status,
                     attempt, seconds, duration, cost, plan, format, reason, actor_user_id, actor_system,
                     correlation_id, causation_id, data (the event's data as JSON text)
  --include-secrets  OPERATORS ONLY: print secrets and addresses as stored (never hand this output to analysts)`;

async function main(): Promise<number> {
  // Its stdout is what it prints for people and scripts: log lines from the code it runs go to stderr.
  logToStderr();
  const { options } = parseArgs(process.argv.slice(2));
  if (options.has("help")) {
    console.log(usage);
    return 0;
  }
  const filter = eventFilter(options);
  const after = Number(options.get("after")?.at(-1) ?? 0);
  const limit = Number(options.get("limit")?.at(-1) ?? Infinity);
  if (!Number.isInteger(after) || after < 0) throw new FilterError("--after must be a whole number");
  if (limit !== Infinity && (!Number.isInteger(limit) || limit < 1)) throw new FilterError("--limit must be a positive whole number");

  const config = loadConfig();
  // Which personal fields of each event read as erased (their key destroyed): the export marks them.
  const erasedFields = new Map<string, readonly string[]>();
  const store = await openEventStore(config, undefined, (event, paths) => void erasedFields.set(event.id, paths));
  const exportOptions = { includeSecrets: options.has("include-secrets"), pseudonymKey: signingSecret(config) };
  const format = options.has("flat") ? flatLine : eventLine;
  let printed = 0;
  const print = (event: RecordedEvent) => {
    // Read, then printed at once (or skipped): what the store said of it is needed no longer after this.
    const erased = erasedFields.get(event.id);
    erasedFields.delete(event.id);
    if (printed >= limit || event.position <= after || !matchesFilter(filter, event)) return;
    process.stdout.write(`${format(exportedEvent(event, exportOptions), erased)}\n`);
    printed++;
  };
  try {
    if (options.has("follow")) {
      const subscription = store.subscribe({ after }, print);
      process.on("SIGINT", () => void subscription.stop());
      await subscription.done;
    } else if (filter.stream !== null) {
      for (const event of await store.readStream(filter.stream)) print(event);
    } else {
      for (let from = after; printed < limit; ) {
        const batch = await store.readAll({ after: from, limit: 1000 });
        if (batch.length === 0) break;
        for (const event of batch) print(event);
        from = batch[batch.length - 1]!.position;
      }
    }
  } finally {
    await store.close();
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof FilterError ? `events: ${error.message}\n\n${usage}` : error);
    process.exit(2);
  },
);
