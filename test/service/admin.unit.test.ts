import { describe, expect, test } from "bun:test";
import { parseAdminCommand, UsageError } from "../../src/cli/admin-args.ts";

describe("bun run admin: reading the command line", () => {
  test("each subcommand becomes one command", () => {
    expect(parseAdminCommand(["plan", "a@b.c", "pro"])).toEqual({ type: "plan", email: "a@b.c", plan: "pro", interval: "month" });
    expect(parseAdminCommand(["plan", "a@b.c", "max", "--interval", "year"])).toEqual({ type: "plan", email: "a@b.c", plan: "max", interval: "year" });
    expect(parseAdminCommand(["plan", "a@b.c", "payg"])).toEqual({ type: "plan", email: "a@b.c", plan: "payg", interval: "none" });
    expect(parseAdminCommand(["grant", "a@b.c", "3600"])).toEqual({ type: "grant", email: "a@b.c", seconds: 3600 });
    expect(parseAdminCommand(["apikey", "create", "a@b.c"])).toEqual({ type: "apikey-create", email: "a@b.c", name: "Operator key" });
    expect(parseAdminCommand(["apikey", "create", "--name", "CI", "a@b.c"])).toEqual({ type: "apikey-create", email: "a@b.c", name: "CI" });
    expect(parseAdminCommand(["apikey", "revoke", "k-1"])).toEqual({ type: "apikey-revoke", keyId: "k-1" });
    expect(parseAdminCommand(["users"])).toEqual({ type: "users", json: false });
    expect(parseAdminCommand(["--json", "users"])).toEqual({ type: "users", json: true });
    expect(parseAdminCommand(["backup", "/backups/today"])).toEqual({ type: "backup", dir: "/backups/today" });
    expect(parseAdminCommand(["restore", "/backups/today"])).toEqual({ type: "restore", dir: "/backups/today" });
    expect(parseAdminCommand(["help"])).toEqual({ type: "help" });
    expect(parseAdminCommand(["grant", "--help"])).toEqual({ type: "help" });
  });

  test("wrong words, values and options are usage errors", () => {
    const refused = [
      [],
      ["plan", "a@b.c"],
      ["plan", "a@b.c", "gold"],
      ["plan", "a@b.c", "free", "--interval", "month"],
      ["plan", "a@b.c", "pro", "--interval", "week"],
      ["grant", "a@b.c", "0"],
      ["grant", "a@b.c", "-5"],
      ["grant", "a@b.c", "1.5"],
      ["grant", "a@b.c", "1e3"],
      ["grant", "a@b.c", "99999999999999999999"],
      ["apikey"],
      ["apikey", "rotate", "k"],
      ["apikey", "revoke"],
      ["users", "extra"],
      ["users", "--all"],
      ["backup"],
      ["backup", "a", "b"],
      ["restore"],
      ["restore", "a", "--force"],
      ["reboot"],
    ];
    for (const argv of refused) expect(() => parseAdminCommand(argv)).toThrow(UsageError);
  });
});
