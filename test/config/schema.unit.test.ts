import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { join } from "node:path";
import { isSettingName, schema, schemaParts, settingNames } from "../../src/settings-schema.ts";
import { groups } from "../../src/config/setting.ts";
import { unknownSettings } from "../../src/config/unknown-settings.ts";

const root = join(import.meta.dir, "../..");

/** Names read straight from the environment in the files `pattern` matches (not through the schema). */
async function environmentReads(pattern: string): Promise<Map<string, string>> {
  const reads = [/process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g, /process\.env\["([^"]+)"\]/g, /Bun\.env\.([A-Za-z_][A-Za-z0-9_]*)/g, /\benv\.([A-Z][A-Z0-9_]*)/g];
  const found = new Map<string, string>();
  for await (const path of new Glob(pattern).scan(root)) {
    const text = await Bun.file(join(root, path)).text();
    for (const read of reads) for (const match of text.matchAll(read)) found.set(match[1]!, path);
  }
  return found;
}

describe("the configuration schema", () => {
  test("each name is declared once, in one part, with a group, a type, a default and a description", () => {
    const declared = schemaParts.flatMap((part) => Object.keys(part));
    expect(declared.length).toBe(new Set(declared).size);
    expect(declared.sort()).toEqual([...settingNames].sort());
    for (const name of settingNames) {
      const { group, type, shownDefault, description } = schema[name];
      expect({ name, ok: groups.includes(group) && type.length > 0 && shownDefault.length > 0 && description.length > 0 }).toEqual({ name, ok: true });
      expect(name).toMatch(/^[A-Z][A-Z0-9_]*$/);
    }
    for (const group of groups) expect({ group, used: settingNames.some((name) => schema[name].group === group) }).toEqual({ group, used: true });
  });

  test("src/config imports nothing else of the service, so code at any layer may read a setting without a cycle", async () => {
    for await (const path of new Glob("src/config/**/*.ts").scan(root)) {
      const text = await Bun.file(join(root, path)).text();
      const outside = [...text.matchAll(/from "(\.[^"]+)"/g)].map((m) => join(path, "..", m[1]!)).filter((target) => !target.startsWith("src/config/"));
      expect({ path, outside }).toEqual({ path, outside: [] });
    }
  });

  test("the service reads no variable outside the schema", async () => {
    const reads = await environmentReads("src/**/*.ts");
    expect(reads.has("PATH")).toBe(true); // the scan itself works
    // PATH is handed on to yt-dlp as it is: the system's, not a setting.
    const outside = [...reads].filter(([name]) => !isSettingName(name) && name !== "PATH");
    expect(outside).toEqual([]);
  });

  test("the variables the suite and the benchmarks read are settings, or ones the unknown-setting rule leaves alone", async () => {
    const reads = [...(await environmentReads("test/**/*.ts")), ...(await environmentReads("bench/**/*.ts"))];
    expect(reads.length).toBeGreaterThan(0);
    const refused = unknownSettings(Object.fromEntries(reads.map(([name]) => [name, "x"])), settingNames);
    expect(refused).toEqual([]);
  });
});
