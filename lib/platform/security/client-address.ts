/**
 * The address a request came from, for throttling sign-in. The web edge (server.ts) writes it
 * into CLIENT_ADDRESS_HEADER on every request, replacing whatever the client sent, so a server
 * action can read it from `headers()` and no client can choose its own.
 */
import { isIPv6 } from "node:net";

export const CLIENT_ADDRESS_HEADER = "x-hookplane-client-address";

/**
 * The socket's peer, or with HOOKPLANE_TRUST_PROXY=1 the last X-Forwarded-For entry (the one the
 * proxy in front of Hookplane appended; earlier entries are the client's to invent).
 */
export function clientAddressOf(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trustProxy: boolean): string {
  const forwarded = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const fromProxy = trustProxy ? forwarded?.split(",").map((s) => s.trim()).filter(Boolean).at(-1) : undefined;
  return normalizeAddress(fromProxy ?? remoteAddress ?? "unknown");
}

/**
 * One throttle key per client: IPv4-mapped IPv6 as IPv4, and an IPv6 address as its /64, since
 * one subscriber is usually handed a whole /64 and could otherwise rotate through it.
 */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ""] = address.toLowerCase().split("::");
  const left = head ? head.split(":") : [];
  const right = address.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = address.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
