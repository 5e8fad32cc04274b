import { describe, expect, test } from "bun:test";
import { addresses, flag, integer, listOf, oneOf, optionalText, secret, text, url } from "../../src/config/setting.ts";

const about = { group: "server", description: "test" } as const;

describe("each kind of setting parses its rule and nothing else", () => {
  test("integer: whole numbers within bounds; the rule names the bounds", () => {
    const port = integer({ ...about, min: 0, max: 65535, fallback: 3000 });
    expect(port.type).toBe("integer 0..65535");
    expect(port.shownDefault).toBe("3000");
    expect(port.parse("8080")).toEqual({ value: 8080 });
    expect(port.parse("0")).toEqual({ value: 0 });
    for (const raw of ["abc", "1.5", "-1", "65536", "1e3", "0x10", "80 80"]) expect(port.parse(raw)).toEqual({ broken: "must be an integer from 0 to 65535" });
  });

  test("flag: only the two words this variable has always taken", () => {
    const metrics = flag({ ...about, words: ["on", "off"], fallback: true });
    expect([metrics.type, metrics.shownDefault]).toEqual(["on|off", "on"]);
    expect(metrics.parse("on")).toEqual({ value: true });
    expect(metrics.parse("off")).toEqual({ value: false });
    expect(metrics.parse("true")).toEqual({ broken: "must be on or off" });
    expect(metrics.show(false)).toBe("off");
    const thread = flag({ ...about, words: ["1", "0"], fallback: true });
    expect(thread.parse("0")).toEqual({ value: false });
    expect(thread.parse("no")).toEqual({ broken: "must be 1 or 0" });
  });

  test("oneOf and listOf: the allowed values, listed in the rule", () => {
    const level = oneOf({ ...about, values: ["info", "debug"], fallback: "info" });
    expect(level.parse("debug")).toEqual({ value: "debug" });
    expect(level.parse("DEBUG")).toEqual({ broken: "must be one of info, debug" });
    const roles = listOf({ ...about, values: ["api", "workers"], fallback: ["api", "workers"] });
    expect(roles.shownDefault).toBe("api,workers");
    expect(roles.parse("workers, api")).toEqual({ value: ["workers", "api"] });
    expect(roles.parse("api,web")).toEqual({ broken: "must be a comma-separated list of api, workers" });
    expect(roles.parse("api,")).toEqual({ broken: "must be a comma-separated list of api, workers" });
  });

  test("url: an absolute URL with one of the protocols", () => {
    const endpoint = url({ ...about, protocols: ["http", "https"] });
    expect([endpoint.type, endpoint.shownDefault, endpoint.fallback]).toEqual(["URL (http, https)", "unset", null]);
    expect(endpoint.parse("https://api.example.com/v1")).toEqual({ value: "https://api.example.com/v1" });
    for (const raw of ["api.example.com", "ftp://example.com", "http://", "http:/x"]) {
      expect(endpoint.parse(raw)).toEqual({ broken: "must be a URL starting with http:// or https://" });
    }
    expect(url({ ...about, protocols: ["esdb", "esdb+discover"] }).parse("esdb+discover://cluster:2113?tls=false")).toEqual({
      value: "esdb+discover://cluster:2113?tls=false",
    });
  });

  test("addresses: IP literals only, the wrong one named", () => {
    const list = addresses(about);
    expect(list.parse("127.0.0.66, ::1")).toEqual({ value: ["127.0.0.66", "::1"] });
    expect(list.parse("127.0.0.66,localhost")).toEqual({ broken: "must be a comma-separated list of IP addresses (localhost is not one)" });
  });

  test("text, optional text and secrets take any text; secrets are marked", () => {
    expect(text({ ...about, fallback: "scribe" }).parse("other")).toEqual({ value: "other" });
    expect(optionalText(about).fallback).toBeNull();
    const token = secret(about);
    expect([token.type, token.secret, token.fallback]).toEqual(["secret", true, null]);
    expect(text({ ...about, fallback: "x" }).secret).toBe(false);
  });
});
