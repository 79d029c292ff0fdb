/**
 * The outbound allow-list, read from the environment in this one place (hooks, notices and the
 * `http_request` tool all take it from here).
 *
 * - `HOOKPLANE_ALLOW_PRIVATE_HOSTS`: comma-separated hosts that may be private or loopback
 *   (`127.0.0.1`, `ci.corp`, `*.corp.example`; `*` = every host).
 * - `HOOKPLANE_ALLOW_PRIVATE_NETWORK=1` (older name): the same as `*`.
 * - `HOOKPLANE_WEBHOOK_ALLOW_HOSTS` (older name): its hosts join the allow-list, and while it is set
 *   webhooks may call only those hosts, as before.
 */
import type { OutboundPolicy } from "./outbound-guard";

export interface OutboundConfig {
  policy: OutboundPolicy;
  /** When non-empty, the only hosts webhooks may call (the older HOOKPLANE_WEBHOOK_ALLOW_HOSTS). */
  webhookOnlyHosts: readonly string[];
}

export function outboundConfigFromEnv(env: Record<string, string | undefined> = process.env): OutboundConfig {
  const webhookOnlyHosts = hostList(env.HOOKPLANE_WEBHOOK_ALLOW_HOSTS);
  const allowPrivateHosts = [...hostList(env.HOOKPLANE_ALLOW_PRIVATE_HOSTS), ...webhookOnlyHosts];
  if (env.HOOKPLANE_ALLOW_PRIVATE_NETWORK === "1" || env.HOOKPLANE_ALLOW_PRIVATE_NETWORK === "true") allowPrivateHosts.push("*");
  return { policy: { allowPrivateHosts: [...new Set(allowPrivateHosts)] }, webhookOnlyHosts };
}

function hostList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
