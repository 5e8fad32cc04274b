import type { SettingSource } from "./read-settings.ts";
import { type Group, groups, type SettingsSchema } from "./setting.ts";

/** One line of the reference, as `admin config --json` prints it. */
export type ReferenceEntry = { name: string; type: string; default: string; description: string; group: Group; secret: boolean };

/** Every setting of `schema`, grouped in the reference's order, in the schema's order within a group. */
export function referenceEntries(schema: SettingsSchema): ReferenceEntry[] {
  const entries = Object.entries(schema).map(([name, setting]) => ({
    name,
    type: setting.type,
    default: setting.shownDefault,
    description: setting.description,
    group: setting.group,
    secret: setting.secret,
  }));
  return groups.flatMap((group) => entries.filter((entry) => entry.group === group));
}

/** Rows padded into columns, the last one left ragged. */
function columns(rows: string[][], indent = ""): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => indent + row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join("  "));
}

/** The reference for a terminal: a section per group, the columns aligned across all of them. */
export function referenceText(schema: SettingsSchema): string {
  const entries = referenceEntries(schema);
  const lines = columns([["NAME", "TYPE", "DEFAULT", "DESCRIPTION"], ...entries.map((e) => [e.name, e.type, e.default, e.description])], "  ");
  const out = [lines[0]!];
  entries.forEach((entry, i) => {
    if (i === 0 || entries[i - 1]!.group !== entry.group) out.push("", `${entry.group}:`);
    out.push(lines[i + 1]!);
  });
  return `${out.join("\n")}\n`;
}

const cell = (text: string) => text.replaceAll("|", "\\|");

/** The reference as docs/operations.md's Markdown table (`npm run config-doc` writes it there); the group is named on its first row. */
export function referenceMarkdown(schema: SettingsSchema): string {
  const entries = referenceEntries(schema);
  const rows = entries.map((e, i) => {
    const group = i === 0 || entries[i - 1]!.group !== e.group ? `**${e.group}**` : "";
    return `| ${group} | \`${e.name}\` | ${cell(e.type)} | ${cell(e.default)} | ${cell(e.description)} |`;
  });
  return ["| group | variable | type | default | description |", "|---|---|---|---|---|", ...rows].join("\n") + "\n";
}

export function referenceJson(schema: SettingsSchema): string {
  return `${JSON.stringify(referenceEntries(schema), null, 2)}\n`;
}

/** The values in effect (`admin config --check`): secrets only say whether they are set. */
export function effectiveText(schema: SettingsSchema, read: { values: Record<string, unknown>; sources: Record<string, SettingSource> }): string {
  const rows = referenceEntries(schema).map(({ name, secret, default: shownDefault }) => {
    const value = read.values[name];
    // Unset says what happens instead ("generated into DATA_DIR/signing-secret", "http://localhost:$PORT").
    const shown = value === null ? shownDefault : secret ? "(set)" : schema[name]!.show(value);
    return [name, shown, read.sources[name]!];
  });
  return `${columns([["NAME", "VALUE", "FROM"], ...rows]).join("\n")}\n`;
}
