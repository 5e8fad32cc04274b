/**
 * One owner per aggregate: a stream is written only by the capability whose folder holds its decider. Others
 * change a task through the tasks capability's commands (src/tasks/commands.ts) and an account through the
 * accounts capability's (src/accounts/commands.ts), and read a task's or account's id from an event with
 * `taskIdOf`/`userIdOf`: none imports another capability's decider (`decider.ts`, `*-decider.ts`, or a file that
 * defines a `Decider`) or its stream-name helpers (`<name>Stream`, `<name>IdOfStream`, exported by its files).
 * Type imports stay allowed: projections read the event types another capability declares.
 * The composition root (src/*.ts and the command-line entry points in src/cli) wires every capability and may.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = join(import.meta.dir, "../..");
const scanned = ["src", "projections", "workers"];

function filesUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(root, path)).isDirectory()) return name === "web" && dir === "src" ? [] : filesUnder(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

/** `src/<capability>` for a capability's file; null for the composition root, projections/ and workers/. */
function capabilityOf(file: string): string | null {
  const parts = file.split("/");
  if (parts[0] !== "src" || parts.length < 3 || parts[1] === "cli" || parts[1] === "core") return null;
  return `src/${parts[1]}`;
}

const isCompositionRoot = (file: string) => file.startsWith("src/") && (file.split("/").length === 2 || file.startsWith("src/cli/"));

export type Import = { from: string; target: string; names: string[]; typeOnly: boolean };

/** The value and type imports (and re-exports) of a file's text, with their resolved targets. */
export function importsOf(file: string, text: string): Import[] {
  const found: Import[] = [];
  const statement = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/g;
  for (const match of text.matchAll(statement)) {
    const [, , typeKeyword, clause = "", specifier = ""] = match;
    if (!specifier.startsWith(".")) continue;
    const braces = /\{([^}]*)\}/.exec(clause)?.[1] ?? "";
    const named = braces
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean);
    const names = named.map((part) =>
      part
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim(),
    );
    const everyNameIsType = named.length > 0 && named.every((part) => part.startsWith("type "));
    const defaultOrNamespace = clause
      .replace(/\{[^}]*\}/, "")
      .replace(/,/g, "")
      .trim();
    const typeOnly = typeKeyword !== undefined || (everyNameIsType && defaultOrNamespace === "");
    const target = relative(root, resolve(dirname(join(root, file)), specifier));
    found.push({ from: file, target, names: defaultOrNamespace === "" ? names : [...names, defaultOrNamespace], typeOnly });
  }
  return found;
}

const sources = scanned.flatMap(filesUnder).map((file) => ({ file, text: readFileSync(join(root, file), "utf8") }));

/** A capability's deciders: files named so, or defining a `Decider` value. */
const isDeciderFile = (file: string, text: string) =>
  /(^|\/|-)decider\.ts$/.test(file) || /export const \w+: Decider</.test(text) || /export const \w+Decider\b/.test(text);

const deciders = new Set(sources.filter(({ file, text }) => capabilityOf(file) !== null && isDeciderFile(file, text)).map(({ file }) => file));

/** Each capability file's exported stream-name helpers: builders (`taskStream`) and parsers (`taskIdOfStream`). */
const streamHelpers = new Map<string, Set<string>>(
  sources
    .filter(({ file }) => capabilityOf(file) !== null)
    .map(({ file, text }) => {
      const names = [...text.matchAll(/export (?:const|function) (\w+(?:Stream|OfStream))\b/g)].map((m) => m[1]!);
      return [file, new Set(names)] as const;
    })
    .filter(([, names]) => names.size > 0),
);

/** Imports by which a file outside a capability would write (or name) that capability's streams. */
export function violations(files: readonly { file: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files) {
    if (isCompositionRoot(file)) continue;
    for (const imported of importsOf(file, text)) {
      const owner = capabilityOf(imported.target);
      if (owner === null || capabilityOf(file) === owner) continue;
      if (deciders.has(imported.target) && !imported.typeOnly) found.push(`${file} imports the decider ${imported.target}`);
      const helpers = streamHelpers.get(imported.target);
      for (const name of imported.names) {
        if (helpers?.has(name)) found.push(`${file} imports the stream helper ${name} from ${imported.target}`);
      }
    }
  }
  return found.sort();
}

describe("one owner per aggregate", () => {
  test("the checked helpers and deciders are found where they live", () => {
    expect(streamHelpers.get("src/tasks/events.ts")).toEqual(new Set(["taskStream", "taskIdOfStream"]));
    expect(streamHelpers.get("src/accounts/events.ts")).toEqual(new Set(["userStream", "userIdOfStream"]));
    for (const decider of ["src/tasks/decider.ts", "src/accounts/decider.ts", "src/folders/decider.ts", "src/tasks/admission.ts"]) {
      expect(deciders.has(decider)).toBe(true);
    }
  });

  test("no file outside a capability imports its decider or its stream helpers", () => {
    expect(violations(sources)).toEqual([]);
  });

  test("the check catches an import of the task decider or stream from another capability", () => {
    const written = {
      file: "src/exports/service.ts",
      text: 'import { taskDecider } from "../tasks/decider.ts";\nimport { taskStream } from "../tasks/events.ts";\n',
    };
    const typed = { file: "src/search/search-projection.ts", text: 'import type { TaskState } from "../tasks/decider.ts";\n' };
    expect(violations([written, typed])).toEqual([
      "src/exports/service.ts imports the decider src/tasks/decider.ts",
      "src/exports/service.ts imports the stream helper taskStream from src/tasks/events.ts",
    ]);
  });
});
