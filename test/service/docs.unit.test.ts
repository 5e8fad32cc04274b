/**
 * The documentation keeps its word: every relative link in README.md, ARCHITECTURE.md and docs/ leads to a file of
 * the repository (and to a heading there, when it names one), nothing points outside the repository, and every
 * command it tells people to run exists (package.json scripts, `bun run admin` commands, files given to bun).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { adminUsage } from "../../src/cli/admin-args.ts";

const root = join(import.meta.dir, "../..");
const documents = [
  "README.md",
  "ARCHITECTURE.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];
const read = (file: string) => readFileSync(join(root, file), "utf8");

/** The text outside fenced code blocks, where links are links. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, "");
/** The fenced code blocks and inline code, where commands are. */
const code = (text: string) => [...text.matchAll(/^```\w*\n([\s\S]*?)^```/gm), ...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

/** GitHub's anchors: lower case, punctuation but `-` and `_` dropped, spaces to `-`, repeats numbered. */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = heading!
      .replace(/<[^>]+>/g, "")
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  // An anchor placed by hand, `<a id="…"></a>`, which GitHub keeps: for a list item a link points into.
  for (const [, id] of prose(markdown).matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id!);
  return anchors;
}

describe("the documentation's links", () => {
  test("GitHub's anchors, as the checker makes them", () => {
    expect([...anchorsOf("# The cluster, with compose\n## `bun run admin` CLI\n## Tests\n## Tests\n```\n# not a heading\n```")]).toEqual([
      "the-cluster-with-compose",
      "bun-run-admin-cli",
      "tests",
      "tests-1",
    ]);
  });

  for (const file of documents) {
    test(`${file}: every relative link resolves inside the repository, anchors included`, () => {
      const broken: string[] = [];
      for (const [, target] of prose(read(file)).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // http:, https:, mailto:
        const [path = "", anchor] = target!.split("#");
        const resolved = path === "" ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path));
        if (relative(root, resolved).startsWith("..")) broken.push(`${target} leaves the repository`);
        else if (!existsSync(resolved)) broken.push(`${target}: no such file`);
        else if (anchor && resolved.endsWith(".md") && !anchorsOf(readFileSync(resolved, "utf8")).has(anchor)) broken.push(`${target}: no such heading`);
      }
      expect(broken).toEqual([]);
    });
  }

  test("nothing cites what a reader of a clone does not have: ../shared, the spec's sections, issue numbers", () => {
    const cited = documents.flatMap((file) =>
      read(file)
        .split("\n")
        .filter((line) => /\.\.\/shared\/|\bspec(?:'s)? (?:section )?\d|\bsection \d|\bissue \d/i.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(cited).toEqual([]);
  });
});

describe("the documentation's commands", () => {
  const scripts = Object.keys((JSON.parse(read("package.json")) as { scripts: Record<string, string> }).scripts);
  const commands = documents.flatMap((file) => code(read(file)).map((text) => ({ file, text })));

  test("every `npm run`/`bun run` names a script of package.json, and every `bun run admin` a command of its usage", () => {
    const wrong: string[] = [];
    for (const { file, text } of commands) {
      for (const [, script, rest] of text.matchAll(/\b(?:npm|bun) run ([\w:-]+)([^\n|;&]*)/g)) {
        if (!scripts.includes(script!)) wrong.push(`${file}: ${script} is not a script`);
        const admin = script === "admin" ? /^\s+([a-z]+)/.exec(rest!)?.[1] : undefined;
        if (admin && !new RegExp(`^ {2}${admin}\\b`, "m").test(adminUsage)) wrong.push(`${file}: admin ${admin} is not a command`);
      }
    }
    expect(wrong).toEqual([]);
    expect(commands.some(({ text }) => text.includes("bun run admin config --check"))).toBe(true);
  });

  test("every file given to bun (a bench, a script, a test folder) exists", () => {
    const missing: string[] = [];
    for (const { file, text } of commands)
      for (const [, path] of text.matchAll(/\bbun (?:test )?((?:bench|scripts|src|test)\/[\w./-]*[\w/])/g))
        if (!path!.includes("<") && !existsSync(join(root, path!))) missing.push(`${file}: ${path}`);
    expect(missing).toEqual([]);
  });

  test("the README stays a page people read: at most 300 lines", () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(300);
  });
});
