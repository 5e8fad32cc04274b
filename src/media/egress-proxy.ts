import net, { type Socket } from "node:net";
import { vetUrl, type Resolver } from "./safe-fetch.ts";
import type { AddressPolicy } from "./address-policy.ts";

/**
 * A forward HTTP proxy on loopback that applies the address policy to every connection a child
 * process makes through it: yt-dlp follows redirects and fetches CDN files on its own, so each of
 * those hops comes here (as `CONNECT host:port` for https, or an absolute-form request for http), is
 * resolved and vetted, and is connected to the vetted address only. Nothing else (ftp, a second
 * hop on a kept-alive connection to another host) gets through: http(s) targets only, and every
 * upstream request is sent with `Connection: close`.
 *
 * Refusals are counted, not described to the client: a child's error messages reach users as failure
 * reasons, and must not tell them which internal addresses or ports exist.
 */
export type EgressProxy = {
  /** `http://127.0.0.1:<port>`, for the child's http_proxy and https_proxy. */
  readonly url: string;
  /** Connections refused by the address policy so far. */
  readonly refusals: number;
  close(): Promise<void>;
};

export type EgressProxyOptions = AddressPolicy & { resolve?: Resolver; idleTimeoutMs?: number };

const MAX_HEAD_BYTES = 16 * 1024;
const HOP_BY_HOP = /^(proxy-connection|proxy-authorization|connection|keep-alive|te|trailer|upgrade):/i;

const reply = (socket: Socket, status: string): void => {
  socket.end(`HTTP/1.1 ${status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
};

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  let refusals = 0;
  const proxy: ProxyContext = { options, sockets: new Set<Socket>(), idleTimeoutMs: options.idleTimeoutMs ?? 60_000, refused: () => refusals++ };
  const server = net.createServer((client) => acceptClient(proxy, client));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  let closed: Promise<void> | null = null;
  return {
    url: `http://127.0.0.1:${port}`,
    get refusals() {
      return refusals;
    },
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        for (const socket of proxy.sockets) socket.destroy();
        server.close(() => resolve());
      })),
  };
}

/** What every connection through one proxy shares: its policy, its open sockets (closed with it), its refusal count. */
type ProxyContext = { options: EgressProxyOptions; sockets: Set<Socket>; idleTimeoutMs: number; refused(): void };

/** Reads a client's request head (up to MAX_HEAD_BYTES), then tunnels it: CONNECT for https, an absolute-form request for http. */
function acceptClient(proxy: ProxyContext, client: Socket): void {
  proxy.sockets.add(client);
  client.once("close", () => proxy.sockets.delete(client));
  client.on("error", () => client.destroy());
  client.setTimeout(proxy.idleTimeoutMs, () => client.destroy());
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (head.byteLength > MAX_HEAD_BYTES) reply(client, "431 Request Header Fields Too Large");
      return;
    }
    client.off("data", onData);
    client.pause();
    routeRequest(proxy, client, head.subarray(0, end).toString("latin1").split("\r\n"), head.subarray(end + 4));
  };
  client.on("data", onData);
}

/** Tunnels one request, given its head's lines and the bytes that came after the head (`rest`), or refuses it. */
function routeRequest(proxy: ProxyContext, client: Socket, [requestLine = "", ...headers]: string[], rest: Buffer) {
  const [method = "", target = "", version = ""] = requestLine.split(" ");
  if (!/^HTTP\/1\.[01]$/.test(version)) return reply(client, "400 Bad Request");
  if (method === "CONNECT") {
    const authority = /^(\[[0-9A-Fa-f:.]+\]|[^\s:/?#@[\]]+):(\d{1,5})$/.exec(target);
    if (!authority || Number(authority[2]) > 65535) return reply(client, "400 Bad Request");
    return void tunnel(
      proxy,
      client,
      authority[1]!,
      Number(authority[2]),
      (upstream) => rest.byteLength > 0 && upstream.write(rest),
      "HTTP/1.1 200 Connection Established\r\n\r\n",
    );
  }
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return reply(client, "400 Bad Request");
  }
  // https goes through CONNECT; anything else (ftp://, file://) is not ours to fetch.
  if (url.protocol !== "http:") {
    proxy.refused();
    return reply(client, "403 Forbidden");
  }
  const forwarded = [`${method} ${url.pathname}${url.search} HTTP/1.1`, ...headers.filter((h) => !HOP_BY_HOP.test(h)), "Connection: close", "", ""].join(
    "\r\n",
  );
  const firstBytes = (upstream: Socket) => {
    upstream.write(forwarded, "latin1");
    if (rest.byteLength > 0) upstream.write(rest);
  };
  void tunnel(proxy, client, url.hostname, Number(url.port || 80), firstBytes, null);
}

/** Connects `client` to the vetted address of `host` (or refuses it), sends `firstBytes` upstream and pipes both ways. */
async function tunnel(
  proxy: ProxyContext,
  client: Socket,
  host: string,
  port: number,
  firstBytes: (upstream: Socket) => void,
  established: string | null,
): Promise<void> {
  let address: string;
  try {
    const vetted = await vetUrl(`http://${host}/`, proxy.options);
    address = vetted.addresses[0]!.address;
  } catch {
    proxy.refused();
    return reply(client, "403 Forbidden");
  }
  const upstream = net.connect({ host: address, port });
  proxy.sockets.add(upstream);
  upstream.setTimeout(proxy.idleTimeoutMs, () => upstream.destroy());
  upstream.once("close", () => {
    proxy.sockets.delete(upstream);
    client.destroy();
  });
  upstream.once("error", () => {
    if (!client.destroyed && client.bytesWritten === 0) reply(client, "502 Bad Gateway");
    else client.destroy();
  });
  upstream.once("connect", () => {
    if (established) client.write(established);
    firstBytes(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  client.once("close", () => upstream.destroy());
}
