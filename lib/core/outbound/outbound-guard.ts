/**
 * The one guard every outbound request passes (webhooks, Slack and Discord notices, the
 * `http_request` tool): http(s) only; no private, loopback, link-local, CGNAT, ULA, multicast or
 * metadata target unless the admin's allow-list names the host. The address check runs on the
 * resolved IPs inside the socket's own DNS lookup, so a name that answers differently on a second
 * lookup (DNS rebinding) cannot slip a private address past it, and every redirect hop is a new
 * connection that passes it again.
 *
 * A refusal says only that the destination is not allowed: never which address a name resolved
 * to, and never whether anything listens there (nothing is ever contacted).
 */
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { hostMatchesAny, isInternalName, isPrivateAddress, normalizeHost } from "./address-policy";

export type LookupFunction = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

export interface OutboundPolicy {
  /**
   * Hosts that may be (or resolve to) private, loopback or link-local addresses: exact names or IP
   * literals (`build.corp`, `127.0.0.1`), `*.suffix`, or `*` for every host. Empty: public only.
   */
  allowPrivateHosts: readonly string[];
  /** DNS, injectable for tests; default `dns.lookup` (the system resolver, as every client uses). */
  lookup?: LookupFunction;
}

export const PUBLIC_ONLY: OutboundPolicy = Object.freeze({ allowPrivateHosts: Object.freeze([]) as readonly string[] });

export class OutboundRefused extends Error {
  readonly code = "EOUTBOUNDREFUSED";
  constructor(message: string) {
    super(message);
    this.name = "OutboundRefused";
  }
}

/** The same words for every refused destination, whatever made it refused. */
export function refusedDestination(host: string): OutboundRefused {
  return new OutboundRefused(
    `refused: ${displayHost(host)} is not an allowed destination (private, loopback, link-local or metadata addresses need the admin's HOOKPLANE_ALLOW_PRIVATE_HOSTS)`,
  );
}

export function mayBePrivate(host: string, policy: OutboundPolicy): boolean {
  return hostMatchesAny(host, policy.allowPrivateHosts);
}

/**
 * What can be decided before connecting: the scheme, names that only mean the host's own network,
 * IP literals (they never reach a DNS lookup). Throws OutboundRefused.
 */
export function preflight(url: URL, policy: OutboundPolicy): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundRefused(`refused: only http and https URLs (got ${url.protocol})`);
  }
  const host = normalizeHost(url.hostname);
  if (mayBePrivate(host, policy)) return;
  if (net.isIP(host) ? isPrivateAddress(host) : isInternalName(host)) throw refusedDestination(host);
}

type SocketLookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http(s).request that refuses a name if any address it resolves to is private. */
export function guardedLookup(policy: OutboundPolicy) {
  const resolve = policy.lookup ?? (dns.lookup as unknown as LookupFunction);
  return (hostname: string, options: dns.LookupOptions, callback: SocketLookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      if (addresses.some((a) => isPrivateAddress(a.address))) return callback(refusedDestination(hostname), []);
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Connection options for one request to `url` after its preflight: the lookup that checks resolved
 * addresses (a plain one for allow-listed hosts) and a keep-alive agent of this policy alone, so a
 * pooled socket opened under one allow-list is never reused under another.
 */
export function connectOptions(url: URL, policy: OutboundPolicy): { lookup: unknown; agent: http.Agent } {
  preflight(url, policy);
  const open = mayBePrivate(url.hostname, policy);
  const agents = agentsOf(policy);
  return {
    lookup: open ? (policy.lookup ? plainLookup(policy.lookup) : undefined) : guardedLookup(policy),
    agent: url.protocol === "https:" ? agents.https : agents.http,
  };
}

function plainLookup(resolve: LookupFunction) {
  return (hostname: string, options: dns.LookupOptions, callback: SocketLookupCallback): void =>
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err || options.all) return callback(err, addresses);
      const first = addresses[0];
      callback(null, first?.address ?? "", first?.family);
    });
}

interface PolicyAgents {
  http: http.Agent;
  https: https.Agent;
}

// Node's global agent settings (keep-alive, 5 s idle); one pair per distinct policy.
const AGENT_OPTIONS = { keepAlive: true, scheduling: "lifo", timeout: 5_000 } as const;
const agentsByPolicy = new WeakMap<OutboundPolicy, PolicyAgents>();
const agentsByHosts = new Map<string, PolicyAgents>();

function agentsOf(policy: OutboundPolicy): PolicyAgents {
  const cached = agentsByPolicy.get(policy);
  if (cached) return cached;
  // Policies with the default resolver share agents by their allow-list (a runtime per run must
  // not leave a pool behind per run); an injected resolver gets its own.
  const key = policy.lookup ? undefined : [...policy.allowPrivateHosts].map(normalizeHost).sort().join(",");
  let agents = key === undefined ? undefined : agentsByHosts.get(key);
  if (!agents) {
    agents = { http: new http.Agent(AGENT_OPTIONS), https: new https.Agent(AGENT_OPTIONS) };
    if (key !== undefined) agentsByHosts.set(key, agents);
  }
  agentsByPolicy.set(policy, agents);
  return agents;
}

function displayHost(host: string): string {
  const h = normalizeHost(host);
  return net.isIPv6(h) ? `[${h}]` : h;
}
