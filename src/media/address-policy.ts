import { isIP } from "node:net";

/**
 * Which addresses a server-side fetch may connect to. Everything that is not plainly a public unicast
 * address is refused: private, loopback, link-local (cloud metadata at 169.254.169.254 among them),
 * CGNAT, multicast, broadcast, unspecified, documentation and benchmarking ranges, and the IPv6
 * equivalents, IPv4-mapped and -translated forms included. Loopback can be allowed for tests only; an operator may
 * name networks that are allowed even so (webhooks to a receiver on the same machine or LAN).
 */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** The settings of the policy: both exist for tests, which may only send traffic to loopback. */
export type AddressPolicy = {
  /** MEDIA_FETCH_ALLOW_LOOPBACK: lets 127.0.0.0/8 and ::1 through. */
  allowLoopback: boolean;
  /** MEDIA_FETCH_FORBIDDEN_ADDRESSES: addresses refused even so, to stand for a private hop in a test. */
  forbiddenAddresses?: readonly string[];
  /** WEBHOOK_ALLOWED_NETWORKS: addresses and CIDR blocks allowed although not public (an operator's own receivers). */
  allowedNetworks?: readonly string[];
};

type Range = { base: bigint; bits: number; prefix: number; reason: string };

function parseIPv4(address: string): bigint | null {
  const parts = address.split(".");
  if (parts.length !== 4) return null;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return null;
    value = (value << 8n) | BigInt(Number(part));
  }
  return value;
}

function parseIPv6(address: string): bigint | null {
  let text = address.toLowerCase();
  const zone = text.indexOf("%");
  if (zone >= 0) text = text.slice(0, zone);
  // A trailing dotted IPv4 (::ffff:1.2.3.4) becomes two hextets.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = parseIPv4(dotted[2]!);
    if (v4 === null) return null;
    text = `${dotted[1]}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || (halves.length === 2 && missing < 1)) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail];
  let value = 0n;
  for (const group of groups) {
    if (!/^[0-9a-f]{1,4}$/.test(group)) return null;
    value = (value << 16n) | BigInt(parseInt(group, 16));
  }
  return value;
}

const v4 = (cidr: string, reason: string): Range => {
  const [base, prefix] = cidr.split("/") as [string, string];
  return { base: parseIPv4(base)!, bits: 32, prefix: Number(prefix), reason };
};
const v6 = (cidr: string, reason: string): Range => {
  const [base, prefix] = cidr.split("/") as [string, string];
  return { base: parseIPv6(base)!, bits: 128, prefix: Number(prefix), reason };
};

const loopbackV4 = v4("127.0.0.0/8", "loopback");
const loopbackV6 = v6("::1/128", "loopback");

const blockedV4: Range[] = [
  v4("0.0.0.0/8", 'unspecified ("this network")'),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "shared address space (CGNAT)"),
  loopbackV4,
  v4("169.254.0.0/16", "link-local (cloud metadata)"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "IETF protocol assignments"),
  v4("192.0.2.0/24", "documentation"),
  v4("192.88.99.0/24", "6to4 relay anycast"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation"),
  v4("203.0.113.0/24", "documentation"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"),
  v4("255.255.255.255/32", "broadcast"),
];

const blockedV6: Range[] = [
  v6("::/128", "unspecified"),
  loopbackV6,
  v6("100::/64", "discard-only"),
  v6("2001:db8::/32", "documentation"),
  v6("2001::/23", "IETF protocol assignments"),
  v6("fc00::/7", "unique local (private)"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "site-local"),
  v6("ff00::/8", "multicast"),
  // fd00:ec2::254 (AWS's IPv6 metadata endpoint) is inside fc00::/7.
];

const inRange = (value: bigint, range: Range) => value >> BigInt(range.bits - range.prefix) === range.base >> BigInt(range.bits - range.prefix);

/** IPv4 embedded in an IPv6 address by mapping (::ffff:a.b.c.d), translation (64:ff9b::/96), compatibility (::a.b.c.d) or 6to4 (2002:AABB:CCDD::). */
function embeddedIPv4(value: bigint): bigint | null {
  if (value >> 32n === 0xffffn) return value & 0xffffffffn;
  if (value >> 32n === 0x0064ff9b0000000000000000n) return value & 0xffffffffn;
  if (value >> 32n === 0n && value > 1n) return value & 0xffffffffn;
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffffffffn;
  return null;
}

function checkV4(value: bigint, allowLoopback: boolean): AddressVerdict {
  if (allowLoopback && inRange(value, loopbackV4)) return { allowed: true };
  const hit = blockedV4.find((range) => inRange(value, range));
  return hit ? { allowed: false, reason: hit.reason } : { allowed: true };
}

/** Whether a fetch may connect to this IP address (a literal; host names must be resolved first). */
export function checkAddress(address: string, options: Partial<AddressPolicy> = {}): AddressVerdict {
  const allowLoopback = options.allowLoopback ?? false;
  if (options.forbiddenAddresses?.some((forbidden) => sameAddress(forbidden, address)))
    return { allowed: false, reason: "forbidden by MEDIA_FETCH_FORBIDDEN_ADDRESSES" };
  if (options.allowedNetworks?.some((network) => inNetwork(address, network))) return { allowed: true };
  const family = isIP(address.replace(/%.*$/, ""));
  if (family === 4) {
    const value = parseIPv4(address);
    return value === null ? { allowed: false, reason: "not an IP address" } : checkV4(value, allowLoopback);
  }
  if (family === 6) {
    const value = parseIPv6(address);
    if (value === null) return { allowed: false, reason: "not an IP address" };
    if (allowLoopback && inRange(value, loopbackV6)) return { allowed: true };
    const embedded = embeddedIPv4(value);
    if (embedded !== null) return checkV4(embedded, allowLoopback);
    const hit = blockedV6.find((range) => inRange(value, range));
    return hit ? { allowed: false, reason: hit.reason } : { allowed: true };
  }
  return { allowed: false, reason: "not an IP address" };
}

/** An address as one number in IPv6's space (IPv4 as ::ffff:a.b.c.d), so that both forms of one address compare equal. */
function unified(address: string): bigint | null {
  const family = isIP(address.replace(/%.*$/, ""));
  if (family === 4) {
    const v = parseIPv4(address);
    return v === null ? null : 0xffff00000000n | v;
  }
  if (family !== 6) return null;
  const v = parseIPv6(address);
  if (v === null) return null;
  // Every other way of writing an IPv4 address inside IPv6 is the IPv4 address too.
  const embedded = embeddedIPv4(v);
  return embedded === null ? v : 0xffff00000000n | embedded;
}

/** Whether `address` is inside `network`: an address (itself only) or a CIDR block, of either family. */
export function inNetwork(address: string, network: string): boolean {
  const [base = "", prefixText] = network.split("/");
  const family = isIP(base);
  const value = unified(address);
  const start = unified(base);
  if (family === 0 || value === null || start === null) return false;
  // An IPv4 prefix counts within the last 32 bits of the ::ffff:0:0/96 form.
  const prefix = prefixText === undefined ? 128 : Number(prefixText) + (family === 4 ? 96 : 0);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > 128) return false;
  const shift = BigInt(128 - prefix);
  return value >> shift === start >> shift;
}

/** Whether two literals name the same address (`::1` and `0:0::1`, `127.0.0.2` and `::ffff:127.0.0.2`). */
function sameAddress(a: string, b: string): boolean {
  const left = unified(a);
  return left !== null && left === unified(b);
}
