/** The outbound allow-list of this server: the operator's settings (lib/platform/config) as lib/core/outbound reads them. */
import { outboundConfig, type OutboundConfig } from "@/lib/core/outbound/outbound-config";
import { getConfig, type Config } from "@/lib/platform/config/config";

export function serverOutboundConfig(config: Config = getConfig()): OutboundConfig {
  return outboundConfig({
    allowPrivateHosts: config.HOOKPLANE_ALLOW_PRIVATE_HOSTS,
    allowPrivateNetwork: config.HOOKPLANE_ALLOW_PRIVATE_NETWORK,
    webhookAllowHosts: config.HOOKPLANE_WEBHOOK_ALLOW_HOSTS,
  });
}
