import { BlockList, isIP } from "node:net";

/** What a route has to hand: the request, and the server it came through (null in process, through `app.handle`). */
export type RequestContext = {
  request: Request;
  /** `timeout`: Bun's per-request idle timer (heavy-work-slots.ts). */
  server: { requestIP(request: Request): { address: string } | null; timeout?(request: Request, seconds: number): void } | null;
};

/**
 * The base URL a request was made to, as its client sees it: `scheme://host[:port]`, or PUBLIC_URL itself when
 * the request came to PUBLIC_URL's host.
 */
export type OriginOf = (context: RequestContext) => string;

const label = "[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?";
/** A DNS name (underscores too: Docker's service names have them), an IPv4 address, or an IPv6 one in brackets; an optional port. */
const hostPattern = new RegExp(`^(?:\\[([0-9a-f:.]{2,45})\\]|${label}(?:\\.${label})*\\.?)(?::([0-9]{1,5}))?$`, "i");
const longestHost = 253 + ":65535".length;

/** The host as an origin with `scheme`, or null when it is not a plain host[:port] (a path, user info, spaces, a huge value...). */
function originFor(scheme: string, host: string): string | null {
  if (host.length === 0 || host.length > longestHost) return null;
  const match = hostPattern.exec(host);
  if (!match) return null;
  if (match[1] !== undefined && isIP(match[1]) !== 6) return null;
  if (match[2] !== undefined && (Number(match[2]) < 1 || Number(match[2]) > 65535)) return null;
  const origin = new URL(`${scheme}://${host}`).origin;
  return origin === "null" ? null : origin;
}

/** The first of a header's comma-separated values (the proxy nearest the client puts its own first). */
const firstValue = (value: string | null) => value?.split(",", 1)[0]?.trim() ?? "";

/** `::ffff:10.0.0.1` (an IPv4 client of a dual-stack listener, as Bun reports it) as `10.0.0.1`. */
const plainAddress = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

function blockListOf(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const network of networks) {
    const [address = "", prefix] = network.split("/");
    const family = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

/**
 * Where a URL that a request's own client uses at once should point (an upload part's PUT, a download, the player's
 * audio): at the address the client reached us by, so the page that asked, at whatever address it was opened
 * (localhost, 127.0.0.1, a LAN address, a proxy's name), can reach it under its Content-Security-Policy's `'self'`.
 *
 * That address is the request's Host and scheme; behind a proxy in `trustedProxies` (the connection comes from it),
 * its X-Forwarded-Host and X-Forwarded-Proto instead. From anyone else those headers are ignored. A host that is not
 * a plain `host[:port]` (a path, user info, odd characters, a huge value) gives `publicUrl`, as does an unknown one.
 * A request to PUBLIC_URL's own host gets PUBLIC_URL itself, scheme and path included: a TLS proxy that passes the
 * Host through keeps working without being trusted.
 *
 * Such a URL goes back only to the client that sent the request, which could as well have typed any address
 * itself: it never goes into events, e-mails, webhooks or share links, which name `publicUrl`.
 */
export function requestOrigins({ publicUrl, trustedProxies }: { publicUrl: string; trustedProxies: readonly string[] }): OriginOf {
  const base = publicUrl.replace(/\/+$/, "");
  const publicHost = new URL(base).host;
  const isTrusted = trustedAddresses(trustedProxies);

  return ({ request, server }) => {
    // Bun builds the URL from the Host: for a malformed one it is relative ("/a") or not a URL at all ("http://[::1/a").
    const url = URL.parse(request.url);
    let scheme = url?.protocol.slice(0, -1) ?? "";
    let host = request.headers.get("host") ?? url?.host ?? "";
    if (isTrusted(server?.requestIP(request)?.address)) {
      const forwardedProto = firstValue(request.headers.get("x-forwarded-proto")).toLowerCase();
      if (forwardedProto === "http" || forwardedProto === "https") scheme = forwardedProto;
      const forwardedHost = firstValue(request.headers.get("x-forwarded-host"));
      if (forwardedHost !== "") host = forwardedHost;
    }
    if (scheme !== "http" && scheme !== "https") return base;
    const origin = originFor(scheme, host);
    if (origin === null) return base;
    return new URL(origin).host === publicHost ? base : origin;
  };
}

/** Whether an address is one of `trustedProxies` (addresses and CIDR blocks); none is when the list is empty. */
function trustedAddresses(trustedProxies: readonly string[]): (address: string | undefined) => boolean {
  const trusted = trustedProxies.length > 0 ? blockListOf(trustedProxies) : null;
  return (address) => {
    if (!trusted || !address) return false;
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && trusted.check(plain, family === 4 ? "ipv4" : "ipv6");
  };
}

/** The address a request came from, as the limits count it: "in-process" for `app.handle`, which has none. */
export type ClientAddressOf = (context: RequestContext) => string;

/**
 * The client's address: the connection's, or behind proxies in `trustedProxies` (compose's load balancer), the
 * nearest address in X-Forwarded-For that is not one of them. Each proxy appends the address it was reached from,
 * so entries left of a trusted proxy's are the client's to write, and only the first untrusted one from the right
 * is believed. Without that, every client behind the load balancer shared one registration limit.
 */
export function clientAddresses(trustedProxies: readonly string[]): ClientAddressOf {
  const isTrusted = trustedAddresses(trustedProxies);
  return ({ request, server }) => {
    const peer = server?.requestIP(request)?.address;
    if (!peer) return "in-process";
    if (!isTrusted(peer)) return peer;
    const forwarded = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((entry) => entry.trim())
      .filter((entry) => entry !== "");
    for (let i = forwarded.length - 1; i >= 0; i--) {
      const address = plainAddress(forwarded[i]!);
      if (isIP(address) === 0) return peer; // not an address: the chain cannot be believed past here
      if (!isTrusted(address)) return address;
    }
    return peer;
  };
}
