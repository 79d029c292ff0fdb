/**
 * The outbound allow-list, from the operator's settings (read from the environment by
 * lib/platform/config; hooks, notices and the `http_request` tool all take it from here).
 *
 * - `allowPrivateHosts` (`HOOKPLANE_ALLOW_PRIVATE_HOSTS`): hosts that may be private or loopback
 *   (`127.0.0.1`, `ci.corp`, `*.corp.example`; `*` = every host).
 * - `allowPrivateNetwork` (`HOOKPLANE_ALLOW_PRIVATE_NETWORK=1`, older name): the same as `*`.
 * - `webhookAllowHosts` (`HOOKPLANE_WEBHOOK_ALLOW_HOSTS`, older name): its hosts join the
 *   allow-list, and while it is set webhooks may call only those hosts, as before.
 */
import type { OutboundPolicy } from "./outbound-guard";

export interface OutboundConfig {
  policy: OutboundPolicy;
  /** When non-empty, the only hosts webhooks may call (the older HOOKPLANE_WEBHOOK_ALLOW_HOSTS). */
  webhookOnlyHosts: readonly string[];
}

export interface OutboundSettings {
  allowPrivateHosts?: readonly string[];
  allowPrivateNetwork?: boolean;
  webhookAllowHosts?: readonly string[];
}

export function outboundConfig(settings: OutboundSettings): OutboundConfig {
  const webhookOnlyHosts = hostList(settings.webhookAllowHosts);
  const allowPrivateHosts = [...hostList(settings.allowPrivateHosts), ...webhookOnlyHosts];
  if (settings.allowPrivateNetwork) allowPrivateHosts.push("*");
  return { policy: { allowPrivateHosts: [...new Set(allowPrivateHosts)] }, webhookOnlyHosts };
}

function hostList(hosts: readonly string[] | undefined): string[] {
  return (hosts ?? []).map((s) => s.trim().toLowerCase()).filter(Boolean);
}
