import { describe, expect, test } from "bun:test";
import { adminUsage, parseAdminCommand, UsageError } from "../../src/cli/admin-args.ts";

describe("bun run admin dead-letters: its words", () => {
  test("list, retry and drop", () => {
    expect(parseAdminCommand(["dead-letters", "list"])).toEqual({ type: "dead-letters-list", json: false });
    expect(parseAdminCommand(["dead-letters", "list", "--json"])).toEqual({ type: "dead-letters-list", json: true });
    expect(parseAdminCommand(["--json", "dead-letters", "list"])).toEqual({ type: "dead-letters-list", json: true });
    expect(parseAdminCommand(["dead-letters", "retry", "0123456789abcdef"])).toEqual({ type: "dead-letters-retry", id: "0123456789abcdef" });
    expect(parseAdminCommand(["dead-letters", "retry", "--all"])).toEqual({ type: "dead-letters-retry", id: null });
    expect(parseAdminCommand(["dead-letters", "drop", "0123456789abcdef"])).toEqual({ type: "dead-letters-drop", id: "0123456789abcdef" });
    expect(adminUsage).toContain("dead-letters retry <id>|--all");
  });

  test("anything else is a usage error (exit 2)", () => {
    for (const args of [
      ["dead-letters"],
      ["dead-letters", "purge"],
      ["dead-letters", "list", "extra"],
      ["dead-letters", "list", "--all"],
      ["dead-letters", "retry"],
      ["dead-letters", "retry", "a", "b"],
      ["dead-letters", "retry", "--all", "a"],
      ["dead-letters", "drop"],
      ["dead-letters", "drop", "--all"],
      ["dead-letters", "drop", "a", "--json"],
    ])
      expect(() => parseAdminCommand(args)).toThrow(UsageError);
  });
});
