/**
 * Which IP addresses a crawler may connect to. A documentation crawl fetches URLs that users (and
 * the pages they point at) choose, so without this a page could steer Parley into the host's own
 * network: the cloud metadata service, a database on loopback, an admin panel on 10/8.
 *
 * The input is an address as the WHATWG URL parser or the resolver prints it: dotted IPv4, or IPv6
 * with or without brackets. Anything that does not parse counts as blocked, so a form this file does
 * not understand can never slip through.
 */

/** IPv4 ranges nobody on the public internet should make us reach: [first octets as a number, prefix]. */
const BLOCKED_V4: ReadonlyArray<readonly [string, number]> = [
  ["0.0.0.0", 8], // "this network", including 0.0.0.0 (reaches loopback on Linux)
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT, often the provider's own services
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, including the metadata service 169.254.169.254
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, including broadcast 255.255.255.255
];

/** Parses dotted-quad IPv4 into a 32-bit unsigned number, or null. Only the canonical form: the URL parser already turned 0x7f.1 and 2130706433 into it. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/** Parses IPv6 (with ::, an embedded dotted IPv4 tail, optional brackets) into eight 16-bit groups, or null. */
export function parseIPv6(text: string): number[] | null {
  let s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  // A zone index (fe80::1%eth0) names an interface, not a different address.
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(":")) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const head = groupsOf(halves[0] ?? "");
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "") : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...new Array<number>(missing).fill(0), ...tail];
}

function groupsOf(part: string): number[] | null {
  if (part === "") return [];
  const pieces = part.split(":");
  const groups: number[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (i === pieces.length - 1 && piece.includes(".")) {
      const v4 = parseIPv4(piece);
      if (v4 === null) return null;
      groups.push(v4 >>> 16, v4 & 0xffff);
    } else {
      if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return null;
      groups.push(Number.parseInt(piece, 16));
    }
  }
  return groups;
}

function v4InRange(address: number, base: string, prefix: number): boolean {
  const start = parseIPv4(base)!;
  const size = 2 ** (32 - prefix);
  return address >= start && address < start + size;
}

function isBlockedV4(address: number): boolean {
  return BLOCKED_V4.some(([base, prefix]) => v4InRange(address, base, prefix));
}

/** The IPv4 address carried in the last 32 bits of an IPv6 address. */
function embeddedV4(groups: number[]): number {
  return (groups[6]! * 0x10000 + groups[7]!) >>> 0;
}

function isBlockedV6(g: number[]): boolean {
  const first = g[0]!;
  const zeroesTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // :: (unspecified) and ::1 (loopback).
  if (zeroesTo(7) && (g[7] === 0 || g[7] === 1)) return true;
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible, deprecated): the socket ends up
  // talking IPv4 to the embedded address, so judge that address.
  if (zeroesTo(5) && (g[5] === 0xffff || g[5] === 0)) return isBlockedV4(embeddedV4(g));
  // 64:ff9b::/96 (NAT64) reaches the embedded IPv4 address through the gateway.
  if (first === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isBlockedV4(embeddedV4(g));
  // 2002::/16 (6to4) carries an IPv4 address in bits 16-47.
  if (first === 0x2002) return isBlockedV4((g[1]! * 0x10000 + g[2]!) >>> 0);
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique-local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated, still routed in places)
  if ((first & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  if (first === 0x2001 && g[1] === 0x0db8) return true; // 2001:db8::/32 documentation
  return false;
}

/** True when `address` is an IP literal (v4 or v6, brackets allowed) rather than a host name. */
export function isIpLiteral(address: string): boolean {
  return parseIPv4(address) !== null || parseIPv6(address) !== null;
}

/**
 * True when connecting to `address` could reach something that is not the public internet.
 * Unparseable input is blocked: the caller resolved or parsed it, so garbage means a bug or a trick.
 */
export function isBlockedAddress(address: string): boolean {
  const v4 = parseIPv4(address);
  if (v4 !== null) return isBlockedV4(v4);
  const v6 = parseIPv6(address);
  if (v6 !== null) return isBlockedV6(v6);
  return true;
}
