/**
 * The address a request was made to (src/http/request-origin.ts), which the URLs a caller uses at once name: its
 * Host and scheme; a trusted proxy's X-Forwarded-Host and X-Forwarded-Proto, and nobody else's; PUBLIC_URL for a
 * host that is not a plain host[:port], and for a request to PUBLIC_URL's own host.
 */
import { describe, expect, test } from "bun:test";
import { clientAddresses, requestOrigins } from "../../src/http/request-origin.ts";
import { readSettings } from "../../src/settings-schema.ts";

const publicUrl = "http://localhost:3000";
/** A request as Bun's server hands it over: its URL built from the Host, the peer's address beside it. */
function context(headers: Record<string, string>, peer: string | null = "203.0.113.9", url = "http://localhost:3000/api/uploads/sign-part") {
  return { request: new Request(url, { headers }), server: peer === null ? null : { requestIP: () => ({ address: peer }) } };
}

describe("without trusted proxies", () => {
  const originOf = requestOrigins({ publicUrl, trustedProxies: [] });

  test.each([
    ["127.0.0.1:3000", "http://127.0.0.1:3000"],
    ["192.168.1.20:3000", "http://192.168.1.20:3000"],
    ["Scribe.Example.COM", "http://scribe.example.com"],
    ["scribe.example.com:80", "http://scribe.example.com"],
    ["[::1]:3000", "http://[::1]:3000"],
    ["[fe80::1]", "http://[fe80::1]"],
    ["scribe_api:3000", "http://scribe_api:3000"],
    ["localhost:3000", publicUrl],
  ])("Host %s → %s", (host, origin) => {
    expect(originOf(context({ host }))).toBe(origin);
  });

  test("the scheme is the connection's: https where the server speaks TLS", () => {
    expect(originOf(context({ host: "scribe.example.com" }, "203.0.113.9", "https://scribe.example.com/x"))).toBe("https://scribe.example.com");
  });

  test("X-Forwarded-Host and X-Forwarded-Proto from an untrusted client are ignored", () => {
    const forged = { host: "192.168.1.20:3000", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
    expect(originOf(context(forged))).toBe("http://192.168.1.20:3000");
    // In process (no server, so no peer): nobody to trust either.
    expect(originOf(context(forged, null))).toBe("http://192.168.1.20:3000");
  });

  test.each([
    ["huge", "a".repeat(100_000)],
    ["a label over 63 characters", `${"a".repeat(64)}.example`],
    ["a path", "evil.example/steal?x="],
    ["user info", "user@evil.example"],
    ["a backslash", "evil.example\\foo"],
    ["a space", "evil example"],
    ["quotes and angle brackets", '"><script>alert(1)</script>'],
    ["a percent-encoding", "evil%2eexample"],
    ["non-ASCII", "évil.example"],
    ["port 0", "example.com:0"],
    ["a port over 65535", "example.com:65536"],
    ["a bad IPv6 literal", "[::zz]:3000"],
    ["an IPv6 zone", "[fe80::1%25eth0]"],
    ["two ports", "example.com:1:2"],
    ["an empty host", ""],
  ])("a Host with %s falls back to PUBLIC_URL", (_, host) => {
    const origin = originOf(context({ host }));
    expect(origin).toBe(publicUrl);
  });

  test("whatever the Host, what comes out is a well-formed origin", () => {
    const hosts = ["a.b", "1.2.3.4:5", "[::]:1", "x", "a-b.c_d.e.", "A.B:65535"];
    for (const host of hosts) {
      const origin = originOf(context({ host }));
      expect(new URL(origin).origin).toBe(origin);
    }
  });

  test("PUBLIC_URL's own host gets PUBLIC_URL itself: a TLS proxy that passes the Host through needs no trust", () => {
    const behindTls = requestOrigins({ publicUrl: "https://scribe.example.com/", trustedProxies: [] });
    expect(behindTls(context({ host: "scribe.example.com" }))).toBe("https://scribe.example.com");
    expect(behindTls(context({ host: "SCRIBE.example.com:80" }))).toBe("https://scribe.example.com");
    expect(behindTls(context({ host: "10.0.0.5:3000" }))).toBe("http://10.0.0.5:3000");
  });
});

describe("behind trusted proxies", () => {
  const originOf = requestOrigins({ publicUrl, trustedProxies: ["10.0.0.0/8", "fd00::/8", "192.0.2.1"] });
  const forwarded = { host: "10.1.2.3:3000", "x-forwarded-host": "scribe.example.com", "x-forwarded-proto": "https" };

  test.each(["10.1.2.3", "::ffff:10.1.2.3", "fd12::7", "192.0.2.1"])("from %s, X-Forwarded-Host and X-Forwarded-Proto count", (peer) => {
    expect(originOf(context(forwarded, peer))).toBe("https://scribe.example.com");
  });

  test.each(["11.1.2.3", "192.0.2.2", "::1", "fe80::1"])("from %s they do not", (peer) => {
    expect(originOf(context(forwarded, peer))).toBe("http://10.1.2.3:3000");
  });

  test("the first of a chain's values is the client's; a proto other than http(s) is ignored; a host alone keeps the connection's scheme", () => {
    expect(originOf(context({ ...forwarded, "x-forwarded-host": "scribe.example.com, inner.proxy", "x-forwarded-proto": "https, http" }, "10.0.0.1"))).toBe(
      "https://scribe.example.com",
    );
    expect(originOf(context({ ...forwarded, "x-forwarded-proto": "javascript" }, "10.0.0.1"))).toBe("http://scribe.example.com");
    expect(originOf(context({ host: "10.1.2.3:3000", "x-forwarded-host": "scribe.example.com:8443" }, "10.0.0.1"))).toBe("http://scribe.example.com:8443");
  });

  test("a trusted proxy's hostile X-Forwarded-Host falls back to PUBLIC_URL, never into the URL", () => {
    for (const host of ["evil.example/path", "a".repeat(5000), "x@y", "<script>"]) {
      expect(originOf(context({ ...forwarded, "x-forwarded-host": host }, "10.0.0.1"))).toBe(publicUrl);
    }
  });
});

describe("the client's address, as the sign-in limits count it", () => {
  const addressOf = clientAddresses(["10.0.0.0/8", "192.0.2.1"]);

  test("the connection's, when it does not come from a trusted proxy, whatever X-Forwarded-For says", () => {
    expect(addressOf(context({ "x-forwarded-for": "198.51.100.7" }, "203.0.113.9"))).toBe("203.0.113.9");
    expect(clientAddresses([])(context({ "x-forwarded-for": "198.51.100.7" }, "10.0.0.1"))).toBe("10.0.0.1");
    expect(addressOf(context({}, null))).toBe("in-process");
  });

  test("behind trusted proxies, the nearest forwarded address that is not one of them: what a client writes further left is not believed", () => {
    expect(addressOf(context({ "x-forwarded-for": "198.51.100.7" }, "10.0.0.1"))).toBe("198.51.100.7");
    expect(addressOf(context({ "x-forwarded-for": "1.1.1.1, 198.51.100.7, 10.9.9.9" }, "192.0.2.1"))).toBe("198.51.100.7");
    expect(addressOf(context({ "x-forwarded-for": "::ffff:198.51.100.7" }, "::ffff:10.0.0.1"))).toBe("198.51.100.7");
  });

  test("a chain of trusted proxies alone, no header, or one that is not an address leaves the proxy's own address", () => {
    expect(addressOf(context({ "x-forwarded-for": "10.1.1.1, 10.2.2.2" }, "10.0.0.1"))).toBe("10.0.0.1");
    expect(addressOf(context({}, "10.0.0.1"))).toBe("10.0.0.1");
    expect(addressOf(context({ "x-forwarded-for": "unknown, <script>" }, "10.0.0.1"))).toBe("10.0.0.1");
    expect(addressOf(context({ "x-forwarded-for": "a".repeat(10_000) }, "10.0.0.1"))).toBe("10.0.0.1");
  });
});

describe("TRUSTED_PROXIES", () => {
  test("takes addresses and CIDR blocks, v4 and v6; none by default", () => {
    expect(readSettings({}).values.TRUSTED_PROXIES).toEqual([]);
    expect(readSettings({ TRUSTED_PROXIES: "10.0.0.0/8, 127.0.0.1,fd00::/8,::1" }).values.TRUSTED_PROXIES).toEqual([
      "10.0.0.0/8",
      "127.0.0.1",
      "fd00::/8",
      "::1",
    ]);
  });

  test.each(["proxy.example", "10.0.0.0/33", "fd00::/129", "10.0.0.1/8/8", "10.0.0.0/-1", "10.0.0.0/x"])("refuses %s, naming it", (value) => {
    const { problems } = readSettings({ TRUSTED_PROXIES: value });
    expect(problems).toEqual([
      expect.stringContaining(`TRUSTED_PROXIES must be a comma-separated list of IP addresses or CIDR blocks (${value.split(",")[0]} is not one)`),
    ]);
  });
});
