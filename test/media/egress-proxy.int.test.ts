import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { startEgressProxy, type EgressProxy } from "../../src/media/egress-proxy.ts";

// The proxy yt-dlp goes through: every hop vetted. 127.0.0.66 stands for a private address
// (MEDIA_FETCH_FORBIDDEN_ADDRESSES), so the tests send traffic to loopback only.

let allowed: ReturnType<typeof Bun.serve>;
let forbidden: ReturnType<typeof Bun.serve>;
let forbiddenHits = 0;
let proxy: EgressProxy;

beforeAll(async () => {
  allowed = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => new Response(`public ${new URL(request.url).pathname} ${request.headers.get("connection")}`),
  });
  forbidden = Bun.serve({ hostname: "127.0.0.66", port: 0, fetch: () => (forbiddenHits++, new Response("internal secret")) });
  proxy = await startEgressProxy({ allowLoopback: true, forbiddenAddresses: ["127.0.0.66"] });
});
afterAll(async () => {
  await proxy.close();
  allowed.stop(true);
  forbidden.stop(true);
});

/** Sends raw bytes to the proxy and reads until it closes (or `until` matches). */
function exchange(request: string, until?: RegExp): Promise<string> {
  const { port } = new URL(proxy.url);
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = net.connect({ host: "127.0.0.1", port: Number(port) }, () => socket.write(request));
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (until?.test(answer)) socket.end();
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(5000, () => socket.destroy(new Error(`no answer: ${answer}`)));
  });
}

describe("the egress proxy", () => {
  test("forwards a plain http request to a permitted host, closing the connection after it", async () => {
    const answer = await exchange(`GET http://127.0.0.1:${allowed.port}/page?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nProxy-Connection: keep-alive\r\n\r\n`);
    expect(answer).toStartWith("HTTP/1.1 200");
    expect(answer).toEndWith("public /page close");
  });

  test("tunnels CONNECT to a permitted host", async () => {
    const answer = await exchange(
      `CONNECT 127.0.0.1:${allowed.port} HTTP/1.1\r\nHost: 127.0.0.1:${allowed.port}\r\n\r\nGET /tunnelled HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toStartWith("HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200");
    expect(answer).toContain("public /tunnelled");
  });

  test("refuses every way to a forbidden address, without connecting and without saying why", async () => {
    const before = proxy.refusals;
    const attempts = [
      `GET http://127.0.0.66:${forbidden.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      `CONNECT 127.0.0.66:${forbidden.port} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET http://[::ffff:127.0.0.66]:${forbidden.port}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET http://169.254.169.254/latest/meta-data/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      `CONNECT 10.0.0.1:443 HTTP/1.1\r\n\r\n`,
      `CONNECT [::ffff:a9fe:a9fe]:80 HTTP/1.1\r\n\r\n`,
      `GET ftp://127.0.0.1:${allowed.port}/ HTTP/1.1\r\n\r\n`,
      `GET file:///etc/passwd HTTP/1.1\r\n\r\n`,
    ];
    for (const attempt of attempts) {
      const answer = await exchange(attempt);
      expect({ attempt, answer }).toEqual({ attempt, answer: "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" });
    }
    expect(proxy.refusals - before).toBe(attempts.length);
    expect(forbiddenHits).toBe(0);
  });

  test("a malformed request is a 400, and an endless head a 431", async () => {
    expect(await exchange("CONNECT nowhere HTTP/1.1\r\n\r\n")).toStartWith("HTTP/1.1 400");
    expect(await exchange("GET /relative HTTP/1.1\r\n\r\n")).toStartWith("HTTP/1.1 400");
    expect(await exchange(`GET http://127.0.0.1/ HTTP/1.1\r\nX: ${"a".repeat(20_000)}`)).toStartWith("HTTP/1.1 431");
  });
});
