import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { operationsDocPath, withReference } from "../../scripts/config-reference.ts";
import { referenceEntries, referenceJson, referenceMarkdown, referenceText } from "../../src/config/reference.ts";
import { schema, settingNames } from "../../src/settings-schema.ts";
import { groups } from "../../src/config/setting.ts";

describe("the configuration reference", () => {
  test("docs/operations.md's table is what `npm run config-doc` makes from the schema (regenerate it when this fails)", () => {
    const page = readFileSync(operationsDocPath, "utf8");
    expect(page).toContain(referenceMarkdown(schema));
    expect(withReference(page)).toBe(page);
  });

  test("lists every setting once, grouped in the reference's order", () => {
    const entries = referenceEntries(schema);
    expect(entries.map((e) => e.name).sort()).toEqual([...settingNames].sort());
    const order = entries.map((e) => groups.indexOf(e.group));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test("Markdown: one row per setting, pipes in types escaped so the table keeps its columns", () => {
    const rows = referenceMarkdown(schema).trimEnd().split("\n");
    expect(rows.length).toBe(settingNames.length + 2);
    for (const row of rows) expect(row.replaceAll("\\|", "").split("|").length).toBe(7);
    expect(rows).toContain("|  | `METRICS` | on\\|off | on | Prometheus metrics at GET /metrics (off: 404, and requests pay nothing for them). |");
    expect(rows.find((row) => row.includes("`PORT`"))).toStartWith("| **server** |");
  });

  test("JSON: name, type, default, description, group and whether it is secret", () => {
    const entries = JSON.parse(referenceJson(schema)) as Record<string, unknown>[];
    expect(entries.length).toBe(settingNames.length);
    expect(entries.find((e) => e.name === "PORT")).toEqual({
      name: "PORT",
      type: "integer 0..65535",
      default: "3000",
      description: "The HTTP port (0: any free port).",
      group: "server",
      secret: false,
    });
    expect(entries.find((e) => e.name === "METRICS_TOKEN")?.secret).toBe(true);
  });

  test("text: a section per group, a line per setting with its type and default", () => {
    const text = referenceText(schema);
    for (const group of groups) expect(text).toContain(`\n${group}:\n`);
    const port = text.split("\n").find((line) => line.trim().startsWith("PORT "));
    expect(port?.trim().split(/\s{2,}/)).toEqual(["PORT", "integer 0..65535", "3000", "The HTTP port (0: any free port)."]);
  });
});
