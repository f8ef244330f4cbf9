/**
 * Classifies IP addresses for the HTTP tools (DESIGN.md §5: refuse private and loopback addresses unless allowed).
 * Pure: no DNS, no I/O. Fails closed — anything that is not a well-formed public unicast address is blocked.
 */

/** IPv4 ranges that are not public unicast: [network, prefix length, what it is]. */
const blockedIpv4: readonly [string, number, string][] = [
  ['0.0.0.0', 8, 'this network / unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved / broadcast'],
];

/** Parses dotted-quad IPv4 (exactly four decimal parts, no leading zeros) into a 32-bit unsigned number. */
export function parseIpv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return null;
    const octet = Number(part);
    if (octet > 255) return null;
    value = value * 256 + octet;
  }
  return value;
}

/**
 * Parses IPv6 text (with `::`, an embedded dotted IPv4 tail and an optional `%zone`) into 8 groups of 16 bits.
 */
export function parseIpv6(text: string): number[] | null {
  let body = text;
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  if (body.length === 0 || body.length > 45) return null;
  let tail: number[] = [];
  if (body.includes('.')) {
    // An embedded dotted IPv4 address takes the place of the last two groups.
    const lastColon = body.lastIndexOf(':');
    if (lastColon < 0) return null;
    const ipv4 = parseIpv4(body.slice(lastColon + 1));
    if (ipv4 === null) return null;
    tail = [Math.floor(ipv4 / 65536), ipv4 % 65536];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const group of part.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return null;
      groups.push(Number.parseInt(group, 16));
    }
    return groups;
  };
  const head = parseGroups(halves[0]!);
  if (head === null) return null;
  if (halves.length === 1) {
    const groups = [...head, ...tail];
    return groups.length === 8 ? groups : null;
  }
  const rest = parseGroups(halves[1]!);
  if (rest === null) return null;
  const known = head.length + rest.length + tail.length;
  if (known > 7) return null;
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

function ipv4InRange(address: number, network: string, prefix: number): boolean {
  const base = parseIpv4(network)!;
  const size = 2 ** (32 - prefix);
  return Math.floor(address / size) === Math.floor(base / size);
}

/** Why an IPv4 address is blocked, or null when it is public unicast. */
function classifyIpv4(address: number): string | null {
  for (const [network, prefix, reason] of blockedIpv4) {
    if (ipv4InRange(address, network, prefix)) return reason;
  }
  return null;
}

/** Why an IPv6 address is blocked, or null when it is public unicast. */
function classifyIpv6(groups: number[]): string | null {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const embeddedIpv4 = g6 * 65536 + g7;
  const zeroTo = (count: number) => groups.slice(0, count).every((group) => group === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // ::ffff:a.b.c.d (IPv4-mapped) and ::ffff:0:a.b.c.d (IPv4-translated) carry an IPv4 address: judge that one.
  if (zeroTo(5) && g5 === 0xffff) return prefixed('IPv4-mapped', classifyIpv4(embeddedIpv4));
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return prefixed('IPv4-translated', classifyIpv4(embeddedIpv4));
  // ::a.b.c.d (deprecated IPv4-compatible) and the rest of ::/96: never used on the public internet.
  if (zeroTo(6)) return 'IPv4-compatible (deprecated)';
  // 64:ff9b::/96 is NAT64 of the embedded IPv4 address; 64:ff9b:1::/48 is local-use NAT64.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return prefixed('NAT64', classifyIpv4(embeddedIpv4));
  }
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'local-use NAT64';
  // 2002::/16 is 6to4 of the IPv4 address in groups 1-2.
  if (g0 === 0x2002) return prefixed('6to4', classifyIpv4(g1 * 65536 + g2));
  if (g0 === 0x2001 && g1 === 0) return 'Teredo';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'documentation';
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'discard-only';
  if ((g0 & 0xfe00) === 0xfc00) return 'unique local (private)';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'site-local (deprecated)';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  return null;
}

function prefixed(kind: string, reason: string | null): string | null {
  return reason === null ? null : `${kind} ${reason}`;
}

/**
 * Why `address` (an IP literal, IPv6 with or without brackets) must not be contacted, or null when it is a
 * public unicast address. Text that is not an IP address is blocked ('not an IP address').
 */
export function blockedAddressReason(address: string): string | null {
  let text = address.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const ipv4 = parseIpv4(text);
  if (ipv4 !== null) return classifyIpv4(ipv4);
  const ipv6 = text.includes(':') ? parseIpv6(text) : null;
  if (ipv6 !== null) return classifyIpv6(ipv6);
  return 'not an IP address';
}

/** True when `address` is loopback, private, link-local, unspecified, CGNAT, multicast, reserved or not an IP. */
export function isBlockedAddress(address: string): boolean {
  return blockedAddressReason(address) !== null;
}
