import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { checkAddress, inNetwork } from "../../src/media/address-policy.ts";
import { MediaFetchError, safeFetch, vetUrl, type Resolver } from "../../src/media/safe-fetch.ts";
import { mediaTypeOf, responseFileName } from "../../src/media/media-type.ts";

describe("address policy", () => {
  const refused = [
    "10.1.2.3",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1", // private
    "127.0.0.1",
    "127.255.255.254",
    "::1", // loopback
    "169.254.169.254",
    "169.254.0.1",
    "fe80::1",
    "fe80::1%eth0", // link-local, cloud metadata
    "100.64.0.1",
    "100.127.255.255", // CGNAT
    "0.0.0.0",
    "0.1.2.3",
    "::", // unspecified
    "224.0.0.1",
    "239.255.255.250",
    "ff02::1", // multicast
    "255.255.255.255",
    "240.0.0.1", // broadcast, reserved
    "fc00::1",
    "fd00:ec2::254",
    "fd12:3456::1", // unique local (AWS IPv6 metadata among them)
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::ffff:a9fe:a9fe", // IPv4-mapped
    "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::1",
    "::127.0.0.1", // NAT64, 6to4, compatible
    "192.0.2.1",
    "198.51.100.1",
    "203.0.113.1",
    "2001:db8::1", // documentation
    "198.18.0.1", // benchmarking
    "not-an-ip",
    "1.2.3",
    "999.1.1.1",
  ];
  const allowed = ["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4001:80b::200e", "::ffff:8.8.8.8"];

  test("private, loopback, link-local, metadata, CGNAT, multicast and unspecified addresses are refused", () => {
    for (const address of refused) expect({ address, verdict: checkAddress(address).allowed }).toEqual({ address, verdict: false });
  });

  test("public addresses are allowed", () => {
    for (const address of allowed) expect({ address, verdict: checkAddress(address).allowed }).toEqual({ address, verdict: true });
  });

  test("the test setting of forbidden addresses refuses them even where loopback is allowed, in any spelling", () => {
    const policy = { allowLoopback: true, forbiddenAddresses: ["127.0.0.66"] };
    for (const address of ["127.0.0.66", "::ffff:127.0.0.66", "::ffff:7f00:42"]) expect(checkAddress(address, policy).allowed).toBe(false);
    expect(checkAddress("127.0.0.1", policy).allowed).toBe(true);
  });

  test("an operator's allowed networks let exactly those addresses through, in any spelling, and nothing else", () => {
    const policy = { allowLoopback: false, allowedNetworks: ["127.0.0.1", "192.168.1.0/24", "fd00:1::/32"] };
    for (const address of ["127.0.0.1", "::ffff:127.0.0.1", "::ffff:7f00:1", "192.168.1.0", "192.168.1.255", "fd00:1:2::3"])
      expect({ address, allowed: checkAddress(address, policy).allowed }).toEqual({ address, allowed: true });
    for (const address of ["127.0.0.2", "::1", "192.168.2.1", "192.168.0.255", "10.0.0.1", "169.254.169.254", "fd00:2::1", "0.0.0.0"])
      expect({ address, allowed: checkAddress(address, policy).allowed }).toEqual({ address, allowed: false });
    expect(inNetwork("10.1.2.3", "0.0.0.0/0")).toBe(true);
    expect(inNetwork("2001:db8::1", "0.0.0.0/0")).toBe(false);
    expect(inNetwork("::1", "::1")).toBe(true);
    expect(inNetwork("garbage", "127.0.0.1")).toBe(false);
    expect(inNetwork("127.0.0.1", "127.0.0.1/33")).toBe(false);
  });

  test("the test setting lets loopback through, and nothing else", () => {
    for (const address of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) expect(checkAddress(address, { allowLoopback: true }).allowed).toBe(true);
    for (const address of ["10.0.0.1", "169.254.169.254", "0.0.0.0", "192.168.0.1"]) expect(checkAddress(address, { allowLoopback: true }).allowed).toBe(false);
  });
});

describe("URL vetting happens after DNS resolution", () => {
  const resolver =
    (table: Record<string, string[]>): Resolver =>
    async (host) =>
      (table[host] ?? []).map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  const options = {
    allowLoopback: false,
    resolve: resolver({
      "media.example": ["93.184.216.34"],
      "evil.example": ["93.184.216.34", "10.0.0.5"],
      "meta.example": ["169.254.169.254"],
      "v6.example": ["::1"],
    }),
  };

  test("a name resolving to any private address is refused, with a reason", async () => {
    await expect(vetUrl("http://media.example/a.mp3", options)).resolves.toMatchObject({ addresses: [{ address: "93.184.216.34", family: 4 }] });
    for (const url of [
      "http://evil.example/a.mp3",
      "http://meta.example/latest/meta-data",
      "http://v6.example/",
      "http://127.0.0.1/",
      "http://[::1]:8080/",
      "http://0x7f000001/",
      "http://2130706433/",
      "http://169.254.169.254/",
    ]) {
      const error = await vetUrl(url, options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MediaFetchError);
      expect((error as Error).message).toMatch(/private network|could not be resolved/);
    }
  });

  test("only http(s), no credentials, names that resolve", async () => {
    await expect(vetUrl("file:///etc/passwd", options)).rejects.toThrow(/only http and https/);
    await expect(vetUrl("ftp://media.example/a.mp3", options)).rejects.toThrow(/only http and https/);
    await expect(vetUrl("http://user:pw@media.example/a.mp3", options)).rejects.toThrow(/user name or password/);
    await expect(vetUrl("http://nowhere.example/", options)).rejects.toThrow(/could not be resolved/);
    await expect(vetUrl("not a url", options)).rejects.toThrow(/not valid/);
  });
});

describe("safeFetch against a local server", () => {
  let server: ReturnType<typeof Bun.serve>;
  let base: string;
  const payload = new Uint8Array(50_000).fill(7);
  beforeAll(() => {
    server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        const url = new URL(request.url);
        switch (url.pathname) {
          case "/a.mp3":
            return new Response(payload, { headers: { "content-type": "audio/mpeg" } });
          case "/hop":
            return Response.redirect(`${base}/a.mp3`, 302);
          case "/to-metadata":
            return Response.redirect("http://169.254.169.254/latest/meta-data/", 302);
          case "/to-private-name":
            return Response.redirect("http://internal.example/a.mp3", 301);
          case "/to-file":
            return Response.redirect("file:///etc/passwd", 302);
          case "/loop":
            return Response.redirect(`${base}/loop`, 302);
          case "/chunked":
            return new Response(
              new ReadableStream({
                pull(c) {
                  c.enqueue(new Uint8Array(10_000));
                },
              }),
              { headers: { "content-type": "audio/mpeg" } },
            );
          case "/slow":
            return new Response(
              new ReadableStream({
                async pull(c) {
                  await Bun.sleep(200);
                  c.enqueue(new Uint8Array(1));
                },
              }),
              { headers: { "content-type": "audio/mpeg" } },
            );
          default:
            return new Response("no", { status: 404 });
        }
      },
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));

  const resolve: Resolver = async (host) => (host === "internal.example" ? [{ address: "10.1.1.1", family: 4 }] : []);
  const options = { maxBytes: 100_000, timeoutMs: 5000, allowLoopback: true, resolve };
  const read = async (body: ReadableStream<Uint8Array>) => new Uint8Array(await new Response(body).arrayBuffer());

  test("fetches, following redirects", async () => {
    const response = await safeFetch(`${base}/hop`, options);
    expect(response.url.pathname).toBe("/a.mp3");
    expect(response.contentType).toBe("audio/mpeg");
    expect(await read(response.body)).toEqual(payload);
  });

  test("connects to the address it vetted, not to a fresh DNS answer", async () => {
    // The system resolver knows no `media.test`: only the vetted answer can have been used.
    const pinned: Resolver = async (host) => (host === "media.test" ? [{ address: "127.0.0.1", family: 4 }] : []);
    const response = await safeFetch(`http://media.test:${server.port}/a.mp3`, { ...options, resolve: pinned });
    expect(await read(response.body)).toEqual(payload);
  });

  test("loopback is refused unless explicitly allowed", async () => {
    await expect(safeFetch(`${base}/a.mp3`, { ...options, allowLoopback: false })).rejects.toThrow(
      "the URL leads into a private network; only public addresses are fetched",
    );
  });

  test("a redirect into the private network is refused before connecting", async () => {
    // The reason names neither the address nor its range: a refusal must not map the private network.
    for (const path of ["/to-metadata", "/to-private-name"]) {
      const error = (await safeFetch(`${base}${path}`, options).catch((e: unknown) => e)) as Error;
      expect(error.message).toBe("the URL leads into a private network; only public addresses are fetched");
    }
    await expect(safeFetch(`${base}/to-file`, options)).rejects.toThrow(/only http and https/);
    await expect(safeFetch(`${base}/loop`, options)).rejects.toThrow(/more than 5 redirects/);
  });

  test("sizes and time are capped; errors say why", async () => {
    await expect(safeFetch(`${base}/a.mp3`, { ...options, maxBytes: 1000 })).rejects.toThrow(/50000 bytes, more than the limit of 1000/);
    const endless = await safeFetch(`${base}/chunked`, options);
    await expect(read(endless.body)).rejects.toThrow(/larger than the limit of 100000/);
    const slow = await safeFetch(`${base}/slow`, { ...options, timeoutMs: 500 });
    await expect(read(slow.body)).rejects.toThrow(/took longer than/);
    await expect(safeFetch(`${base}/missing.mp3`, options)).rejects.toThrow(/answered 404/);
    const closed = `http://127.0.0.1:${server.port === 1 ? 2 : 1}/a.mp3`;
    await expect(safeFetch(closed, options)).rejects.toThrow(/could not download/);
  });
});

test("media type and file name of a response", () => {
  expect(mediaTypeOf("audio/mpeg", "a.mp3")).toBe("audio/mpeg");
  expect(mediaTypeOf("application/octet-stream", "a.flac")).toBe("audio/flac");
  expect(mediaTypeOf(null, "a.webm")).toBe("video/webm");
  expect(mediaTypeOf("text/html; charset=utf-8", "index.html")).toBeNull();
  expect(mediaTypeOf("application/octet-stream", "a.exe")).toBeNull();
  expect(responseFileName(new URL("http://x/media/Interview%20one.mp3?x=1"), null)).toBe("Interview one.mp3");
  expect(responseFileName(new URL("http://x/get"), `attachment; filename="talk.m4a"`)).toBe("talk.m4a");
  expect(responseFileName(new URL("http://x/get"), `attachment; filename="x.m4a"; filename*=UTF-8''R%C3%A9union.m4a`)).toBe("Réunion.m4a");
  expect(responseFileName(new URL("http://x/"), null)).toBe("media");
});
