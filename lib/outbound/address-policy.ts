/**
 * Which addresses and names an outbound request may reach without an admin's say-so: none on the
 * host's own networks (cloud metadata at 169.254.169.254, the database on localhost, the office
 * LAN, a VPC's ULA range). Pure functions; the socket-level guard is outbound-guard.ts.
 */
import net from "node:net";

const blocked = new net.BlockList();
for (const [prefix, bits] of [
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
] as const) {
  blocked.addSubnet(prefix, bits, "ipv4");
}
for (const [prefix, bits] of [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible form (::10.0.0.1)
  ["fc00::", 7], // unique local (fd00::/8 included)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated, still routed on some LANs)
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 can reach private IPv4
  ["64:ff9b:1::", 48], // local-use NAT64
  ["2002::", 16], // 6to4 can embed private IPv4
  ["100::", 64], // discard-only
] as const) {
  blocked.addSubnet(prefix, bits, "ipv6");
}

/** True for loopback, private, link-local, multicast and reserved addresses (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = net.isIP(bare);
  if (family === 4) return blocked.check(bare, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return blocked.check(mapped[1], "ipv4");
    return blocked.check(bare, "ipv6");
  }
  return true; // not an IP at all: refuse rather than guess
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

/** `[::1]` → `::1`, `Example.COM.` → `example.com`: the form every host comparison uses. */
export function normalizeHost(host: string): string {
  return host.replace(/^\[|\]$/g, "").replace(/\.+$/, "").toLowerCase();
}

/** `api.example.com` exactly, `*.example.com` any subdomain (not the apex), `*` every host. */
export function hostMatches(host: string, pattern: string): boolean {
  const h = normalizeHost(host);
  const p = normalizeHost(pattern.trim());
  if (p === "*") return true;
  return p.startsWith("*.") ? h.endsWith(p.slice(1)) && h.length > p.length - 1 : h === p;
}

export function hostMatchesAny(host: string, patterns: readonly string[]): boolean {
  return patterns.some((pattern) => hostMatches(host, pattern));
}
