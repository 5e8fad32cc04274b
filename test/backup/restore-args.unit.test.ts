/** `admin restore <dir> [--erasures-from <path>]` as parsed (src/cli/admin-args.ts). */
import { expect, test } from "bun:test";
import { parseAdminCommand, UsageError } from "../../src/cli/admin-args.ts";

test("restore takes one directory and an optional --erasures-from", () => {
  expect(parseAdminCommand(["restore", "/b"])).toEqual({ type: "restore", dir: "/b" });
  expect(parseAdminCommand(["restore", "/b", "--erasures-from", "/newer"])).toEqual({ type: "restore", dir: "/b", erasuresFrom: "/newer" });
  expect(parseAdminCommand(["restore", "--erasures-from=/newer", "/b"])).toEqual({ type: "restore", dir: "/b", erasuresFrom: "/newer" });
  for (const argv of [
    ["restore", "/b", "--force"],
    ["backup", "/b", "--erasures-from", "/x"],
    ["restore", "/b", "/c"],
  ]) {
    expect(() => parseAdminCommand(argv)).toThrow(UsageError);
  }
});
