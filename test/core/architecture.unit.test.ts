/**
 * The layout's rules, checked on the import graph (madge): no import cycle between files, and none
 * between folders. A capability (src/<name>) may use core, the ports and other capabilities below it,
 * never the composition root (src/*.ts) and never one that uses it back; projections/ and workers/
 * hold only the runner, relay and lists, which the capabilities never import, and src/capabilities the list of
 * every capability's manifest, which the root and those lists read.
 */
import { describe, expect, test } from "bun:test";
import madge from "madge";
import { join } from "node:path";

const root = join(import.meta.dir, "../..");
const scanned = ["src", "projections", "workers"];

async function graph(skipTypeImports: boolean): Promise<Record<string, string[]>> {
  const result = await madge(
    scanned.map((dir) => join(root, dir)),
    {
      baseDir: root,
      fileExtensions: ["ts", "tsx"],
      tsConfig: join(root, "tsconfig.json"),
      detectiveOptions: { ts: { skipTypeImports }, tsx: { skipTypeImports } },
    },
  );
  return result.obj();
}

/**
 * The folder a file belongs to for these rules: `src/<capability>`, or `src` for the composition root
 * (`src/*.ts` and the command-line entry points in `src/cli`), or `projections`/`workers`.
 */
const folderOf = (file: string) => {
  const parts = file.split("/");
  if (parts[0] !== "src") return parts[0]!;
  return parts.length > 2 && parts[1] !== "cli" ? `src/${parts[1]}` : "src";
};

/** Strongly connected groups of more than one node (Tarjan). */
function cycles(edges: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe("the import graph", () => {
  test("no file imports itself back through others, type imports included", async () => {
    const files = await graph(false);
    const edges = new Map(Object.entries(files).map(([file, deps]) => [file, new Set(deps)]));
    expect(cycles(edges)).toEqual([]);
  }, 60_000);

  test("no folder imports itself back through others, type imports included: capabilities form a hierarchy", async () => {
    const files = await graph(false);
    const edges = new Map<string, Set<string>>();
    const via = new Map<string, string>();
    for (const [file, deps] of Object.entries(files)) {
      const from = folderOf(file);
      for (const dep of deps) {
        const to = folderOf(dep);
        if (to === from || !scanned.some((dir) => dep.startsWith(`${dir}/`))) continue;
        if (!edges.has(from)) edges.set(from, new Set());
        edges.get(from)!.add(to);
        via.set(`${from} -> ${to}`, `${file} -> ${dep}`);
      }
    }
    const found = cycles(edges).map((group) => ({
      group,
      imports: [...via].filter(([edge]) => group.includes(edge.split(" -> ")[0]!) && group.includes(edge.split(" -> ")[1]!)).map(([, example]) => example),
    }));
    expect(found).toEqual([]);
    // The composition root and the lists (the capabilities', the projections', the workers') are imported by nothing inside the capabilities.
    for (const [from, targets] of edges)
      if (from.startsWith("src/"))
        for (const root of ["src", "projections", "workers", "src/capabilities"])
          expect({ from, imports: targets.has(root) ? root : null }).toEqual({ from, imports: null });
  }, 60_000);
});

test("the list of all projections is exactly what the capabilities' manifests declare", async () => {
  const { allProjections } = await import("../../projections/index.ts");
  const { capabilities } = await import("../../src/capabilities/index.ts");
  const declared = capabilities.flatMap((capability) => capability.projections.map((p) => p.name)).sort();
  expect(allProjections.map((p) => p.name).sort()).toEqual(declared);
});

test("every folder whose index exports a capability's manifest is in the list of capabilities, under its folder's name", async () => {
  const { readdirSync, existsSync } = await import("node:fs");
  const { capabilities } = await import("../../src/capabilities/index.ts");
  const folders = readdirSync(join(root, "src"), { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(join(root, "src", e.name, "index.ts")));
  const withManifest: string[] = [];
  for (const folder of folders) {
    const index = (await import(join(root, "src", folder.name, "index.ts"))) as { capability?: { name: string } };
    if (!index.capability) continue;
    withManifest.push(folder.name);
    expect(index.capability.name).toBe(folder.name);
  }
  expect(capabilities.map((capability) => capability.name).sort()).toEqual(withManifest.sort());
});

test("tests are grouped like the code: no test file sits directly in test/, each folder names a capability, a port, the plumbing, the fault suite or bench/", async () => {
  const { readdirSync } = await import("node:fs");
  const entries = readdirSync(join(root, "test"), { withFileTypes: true });
  expect(entries.filter((e) => e.isFile() && e.name.endsWith(".test.ts")).map((e) => e.name)).toEqual([]);
  const sourceFolders = new Set([
    ...readdirSync(join(root, "src"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name),
    "projections",
    "workers",
    "service",
    // The fault-injection suite: the whole service under injected faults, one named case per fault.
    "faults",
    "contracts",
    "support",
    "bench",
  ]);
  const testFolders = entries.filter((e) => e.isDirectory()).map((e) => e.name);
  expect(testFolders.filter((name) => !sourceFolders.has(name))).toEqual([]);
});
