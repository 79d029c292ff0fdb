/**
 * Which addresses and names an outbound request may reach without an admin's say-so: none on the
 * host's own networks (cloud metadata at 169.254.169.254, the database on localhost, the office
 * LAN, a VPC's ULA range). Pure functions; the socket-level guard is outbound-guard.ts.
 */
import net from "node:net";
import { normalizeHost } from "./host-patterns";

// CIDR checks by hand on integers: net.BlockList.check builds a SocketAddress per call (~10 µs),
// and this runs on every outbound request.
const IPV4_BLOCKED = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved and broadcast
].map(([prefix, bits]) => ipv4Range(prefix as string, bits as number));

const IPV6_BLOCKED = [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form (::10.0.0.1)
  ["fc00::", 7], // unique local (fd00::/8 included)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed on some LANs)
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 can reach private IPv4
  ["64:ff9b:1::", 48], // local-use NAT64
  ["2002::", 16], // 6to4 can embed private IPv4
  ["100::", 64], // discard-only
].map(([prefix, bits]) => ({ words: ipv6Words(prefix as string)!, bits: bits as number }));

/** True for loopback, private, link-local, multicast and reserved addresses (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  let bare = address;
  if (bare.charCodeAt(0) === 91 /* [ */) bare = bare.slice(1, bare.endsWith("]") ? -1 : undefined);
  const zone = bare.indexOf("%");
  if (zone >= 0) bare = bare.slice(0, zone);
  const v4 = ipv4Number(bare);
  if (v4 !== undefined) return ipv4Blocked(v4);
  const words = net.isIPv6(bare) ? ipv6Words(bare) : undefined;
  if (!words) return true; // not an IP at all: refuse rather than guess
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 rules decide.
  if (words[0] === 0 && words[1] === 0 && words[2] === 0 && words[3] === 0 && words[4] === 0 && words[5] === 0xffff) {
    return ipv4Blocked(((words[6] << 16) | words[7]) >>> 0);
  }
  return IPV6_BLOCKED.some((range) => prefixMatches(words, range.words, range.bits));
}

function ipv4Blocked(ip: number): boolean {
  for (const range of IPV4_BLOCKED) if (((ip & range.mask) >>> 0) === range.base) return true;
  return false;
}

function ipv4Range(prefix: string, bits: number) {
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return { base: (ipv4Number(prefix)! & mask) >>> 0, mask };
}

/** `a.b.c.d` with four decimal parts 0-255 (the form URLs and resolvers give), else undefined. */
function ipv4Number(text: string): number | undefined {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      part = part * 10 + (c - 48);
      if (++digits > 3 || part > 255) return undefined;
    } else if (c === 46 && digits > 0 && dots < 3) {
      value = value * 256 + part;
      part = 0;
      digits = 0;
      dots++;
    } else return undefined;
  }
  if (dots !== 3 || digits === 0) return undefined;
  return (value * 256 + part) >>> 0;
}

/** Eight 16-bit words of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function ipv6Words(text: string): number[] | undefined {
  let body = text;
  const tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  if (body.includes(".", lastColon)) {
    const v4 = ipv4Number(body.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    tail.push(v4 >>> 16, v4 & 0xffff);
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith("::")) body = body.slice(0, -1);
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => (/^[0-9a-f]{1,4}$/i.test(h) ? parseInt(h, 16) : NaN)));
  const gap = body.indexOf("::");
  let words: number[];
  if (gap >= 0) {
    const left = parse(body.slice(0, gap));
    const right = parse(body.slice(gap + 2));
    const fill = 8 - tail.length - left.length - right.length;
    if (fill < 0) return undefined;
    words = [...left, ...new Array<number>(fill).fill(0), ...right, ...tail];
  } else {
    words = [...parse(body), ...tail];
  }
  return words.length === 8 && words.every((w) => w >= 0 && w <= 0xffff) ? words : undefined;
}

function prefixMatches(words: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const take = Math.min(16, bits);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((words[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
}

/**
 * Names that only ever mean the host's own network: refused by name, before any DNS question, so
 * the answer does not depend on what the resolver says (`metadata.google.internal` resolves only
 * inside a cloud VM). `.internal` is ICANN's reserved private TLD.
 */
const BLOCKED_NAMES = new Set(["localhost", "metadata", "metadata.goog", "instance-data"]);
const BLOCKED_SUFFIXES = [".localhost", ".internal", ".local"];

export function isInternalName(host: string): boolean {
  const h = normalizeHost(host);
  return BLOCKED_NAMES.has(h) || BLOCKED_SUFFIXES.some((suffix) => h.endsWith(suffix));
}

export { hostMatches, hostMatchesAny, normalizeHost } from "./host-patterns";
