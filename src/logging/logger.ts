/**
 * The service's log: one JSON object per line on stdout (pino), or readable lines when stdout is a
 * terminal. Every line passes through the scrubber (src/logging/scrubbing.ts) before it is written.
 *
 * Pretty printing is pino-pretty's formatter called in this thread, not a pino transport: a transport
 * runs in a worker thread, and a line logged just before a crash or `process.exit` may never reach it;
 * here a line is on stdout when the call returns, and the scrubber sits in the same place for both forms.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { hostname } from "node:os";
import pino, { type LevelWithSilent, type Logger } from "pino";
import { prettyFactory } from "pino-pretty";
import { mayHoldPattern, redactSecretFields, scrubber, secretFinder } from "./scrubbing.ts";
import { BatchedOutput } from "./batched-output.ts";

export type { Logger } from "pino";
export type LogLevel = LevelWithSilent;

/** Where finished lines go: stdout, or a collector in tests. `flush`: what the sink holds back, written now. */
export type LogSink = { write(line: string): unknown; flush?(): void };

export type LogOutputOptions = {
  /** Readable lines with colours (a terminal) instead of JSON (a log collector). */
  pretty: boolean;
  /** The values of configured secrets, blanked wherever they would appear. */
  secrets?: readonly string[];
  sink?: LogSink;
};

/** Fields that every line logged inside `withLogContext` carries: the worker and the correlation id of the event it handles. */
export type LogContext = Readonly<Record<string, string | number | null>>;

const context = new AsyncLocalStorage<LogContext>();

// The one output to the standard streams: each BatchedOutput hooks the process's exit, so a tool moving its log to
// stderr switches this one (logToStderr) rather than making another.
const standardOutput = BatchedOutput.of(1);

/**
 * Runs `work` with `fields` added to every line it logs, however deep in its awaits. A child logger used
 * inside should not bind the same fields: pino would write the key twice.
 */
export function withLogContext<T>(fields: LogContext, work: () => T): T {
  return context.run({ ...context.getStore(), ...fields }, work);
}

/**
 * Text that JSON writes as it is and that none of the scrubbing patterns can match (scrubbing.ts: they need a
 * space, `?`, `&`, `_`, `$` or `://`): a request's id, method and route template.
 */
const plainText = /^[A-Za-z0-9.:/{}-]*$/;

/** pino's JSON line at error or fatal level (its level formatter below writes the label). */
const urgentLevel = /^\{"level":"(error|fatal)"/;

/** The stream pino writes to: scrubs, then prettifies or not. Reconfigurable, so loggers made before start-up follow the configuration. */
class LogOutput {
  private scrub = scrubber();
  /** Whether a plain text (`plainText`) holds a configured secret. */
  holdsSecret = secretFinder([], plainText);
  private prettify: ((line: string) => string) | null = null;
  private sink: LogSink;

  constructor(options: LogOutputOptions) {
    // Written in batches, and at once from error level up and at exit (batched-output.ts).
    this.sink = options.sink ?? standardOutput;
    this.configure(options);
  }

  configure(options: LogOutputOptions): void {
    this.scrub = scrubber(options.secrets);
    this.holdsSecret = secretFinder(options.secrets ?? [], plainText);
    // Colours only where the terminal shows them; the time of day is enough to read a terminal by.
    this.prettify = options.pretty ? prettyFactory({ translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname" }) : null;
    if (options.sink) this.sink = options.sink;
  }

  write(line: string): void {
    const clean = this.scrub(line);
    this.sink.write(this.prettify ? this.prettify(clean) : clean);
    // An error may be the last thing the process says: it and every line before it go out now.
    if (urgentLevel.test(clean)) this.sink.flush?.();
  }

  /** A line at info or below that is known to need no scrubbing (`flatLine`). */
  writeClean(line: string): void {
    this.sink.write(this.prettify ? this.prettify(line) : line);
  }
}

function pinoOver(output: LogOutput, level: LogLevel): Logger {
  return pino(
    {
      level,
      // Level names and ISO times, so a line reads the same in jq as in a terminal.
      formatters: { level: (label) => ({ level: label }), log: redactSecretFields },
      timestamp: pino.stdTimeFunctions.isoTime,
      // A copy: pino merges each call's fields into what the mixin returns, which must not change the context itself.
      mixin: () => ({ ...context.getStore() }),
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    output,
  );
}

/** A logger of its own (tests, tools): the same format, redaction and context as the service's. */
export function createLogger(options: LogOutputOptions & { level: LogLevel }): Logger {
  const output = new LogOutput(options);
  return withFlatLines(pinoOver(output, options.level), output, "");
}

// Until start-up reads LOG_LEVEL, lines at info and above, as JSON unless stdout is a terminal.
const rootOutput = new LogOutput({ pretty: Boolean(process.stdout.isTTY) });
const root = pinoOver(rootOutput, "info");
const components = new Map<string, Logger>();

/** The logger of one part of the service (`bus`, `relay`, `transcription`...): its lines carry `component`. */
export function logger(component: string): Logger {
  let child = components.get(component);
  if (!child) {
    child = withFlatLines(root.child({ component }), rootOutput, `,"component":${JSON.stringify(component)}`);
    components.set(component, child);
  }
  return child;
}

/** A line's fields that are plain values: what `flatLine` writes itself. */
export type FlatFields = Readonly<Record<string, string | number | boolean | null>>;

/** What pino puts after the time of every line: its `base` (pid and host name), then the logger's own bindings. */
const baseFields = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;

/** Where each of our loggers writes, and the fields it binds, as pino writes them. */
const flatTargets = new WeakMap<Logger, { output: LogOutput; bindings: string; plainBindings: boolean }>();

function withFlatLines(log: Logger, output: LogOutput, bindings: string): Logger {
  const all = baseFields + bindings;
  flatTargets.set(log, { output, bindings: all, plainBindings: !mayHoldPattern.test(all) });
  return log;
}

/**
 * `log[level](fields, msg)`, the same line byte for byte (test/logging/flat-lines.int.test.ts), written without pino's
 * generic path (mixin, formatters, its tracing channel), which cost about 2 µs of a request's 30 at LOG_LEVEL=info: the
 * request log writes one per request. Falls back to pino wherever the line would differ: inside a log context, with a
 * field named like a secret, or on a logger made elsewhere. The line is scrubbed and prettified as any other, but for
 * a line of plain values only (`plainMembers`): no scrubbing pattern can match one, and a configured secret is looked
 * for in its strings alone (the rest of the line is the logger's own).
 */
export function flatLine(log: Logger, level: "info" | "debug", fields: FlatFields, msg: string): void {
  if (!log.isLevelEnabled(level)) return;
  const target = flatTargets.get(log);
  if (target === undefined || context.getStore() !== undefined) {
    log[level](fields, msg);
    return;
  }
  const plain = target.plainBindings && plainText.test(msg) ? plainMembers(fields, target.output) : null;
  if (plain === null && redactSecretFields(fields) !== fields) {
    log[level](fields, msg);
    return;
  }
  let members = plain;
  if (members === null) {
    const own = JSON.stringify(fields);
    members = own.length > 2 ? `,${own.slice(1, -1)}` : "";
  }
  const line = `{"level":"${level}","time":"${isoNow()}"${target.bindings}${members},"msg":${JSON.stringify(msg)}}\n`;
  if (plain === null) target.output.write(line);
  else target.output.writeClean(line);
}

/** Member names known to be plain and no secret's name, as JSON writes them (`,"route":`). */
const plainNames = new Map<string, string | null>();

function plainName(name: string): string | null {
  let written = plainNames.get(name);
  if (written === undefined) {
    written = plainText.test(name) && redactSecretFields({ [name]: 0 })[name] === 0 ? `,"${name}":` : null;
    if (plainNames.size < 1000) plainNames.set(name, written);
  }
  return written;
}

/**
 * The members of `fields` as JSON.stringify writes them, built by hand, when every name is plain and no secret's,
 * every string plain text without `://` or a configured secret, and every number finite; null otherwise (the line is
 * made and scrubbed the general way).
 */
function plainMembers(fields: FlatFields, output: LogOutput): string | null {
  let members = "";
  for (const name in fields) {
    const written = plainName(name);
    if (written === null) return null;
    const value = fields[name];
    if (typeof value === "string") {
      if (!plainText.test(value) || value.includes("://") || output.holdsSecret(value)) return null;
      members += `${written}"${value}"`;
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return null;
      members += written + value;
    } else if (typeof value === "boolean" || value === null) members += written + value;
    else return null; // not a flat value after all (a caller in plain JavaScript)
  }
  return members;
}

let lastMs = 0;
let lastIso = "";

/** pino's time (`new Date().toISOString()`), made once per millisecond: a busy service writes many lines in one. */
function isoNow(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/**
 * Applies the configuration at start-up (main.ts). A pino child keeps the level it was made with, so the
 * components' loggers, made when their modules loaded, are set one by one.
 */
export function configureLogging(options: { level: LogLevel; pretty?: boolean; secrets?: readonly string[] }): void {
  rootOutput.configure({ pretty: options.pretty ?? Boolean(process.stdout.isTTY), secrets: options.secrets });
  setLevel(options.level);
}

/**
 * The service's log batches go to a thread that writes them (off-thread-writes.ts), so requests never wait for a
 * write; error lines and the exit still write everything before they return. Tools keep writing on their own thread.
 */
export function writeLogOffThread(): void {
  standardOutput.moveOffThread();
}

/** For the command-line tools, whose stdout is their product (NDJSON, a new key, a report): the log goes to stderr. */
export function logToStderr(level: LogLevel = "info"): void {
  standardOutput.switchTo(2);
  rootOutput.configure({ pretty: Boolean(process.stderr.isTTY) });
  setLevel(level);
}

function setLevel(level: LogLevel): void {
  root.level = level;
  for (const child of components.values()) child.level = level;
}
