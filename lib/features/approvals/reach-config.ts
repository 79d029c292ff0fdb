/**
 * The settings of approvals outside the dashboard, from the configuration module
 * (lib/platform/config): where people reach the dashboard, the Slack app's signing secret, and
 * where Slack and Discord messages are posted and updated (tests point them at local servers).
 */
import { getConfig, type Config } from "@/lib/platform/config/config";
import { publicUrl } from "@/lib/platform/config/public-url";

export interface ReachConfig {
  publicUrl: string;
  slackSigningSecret: string | undefined;
  slackBaseUrl: string;
  discordBaseUrl: string;
}

type ReachVariables = Pick<
  Config,
  "HOOKPLANE_PUBLIC_URL" | "HOOKPLANE_SLACK_SIGNING_SECRET" | "HOOKPLANE_SLACK_BASE_URL" | "HOOKPLANE_DISCORD_BASE_URL" | "HOSTNAME" | "PORT"
>;

/** reachConfig's answer for each configuration read: every bridged call makes a notice port. */
const byConfig = new WeakMap<ReachVariables, ReachConfig>();

export function reachConfig(config: ReachVariables = getConfig()): ReachConfig {
  let reach = byConfig.get(config);
  if (!reach) byConfig.set(config, (reach = readReach(config)));
  return reach;
}

function readReach(config: ReachVariables): ReachConfig {
  return {
    publicUrl: publicUrl(config),
    slackSigningSecret: config.HOOKPLANE_SLACK_SIGNING_SECRET,
    slackBaseUrl: (config.HOOKPLANE_SLACK_BASE_URL ?? "https://slack.com/api").replace(/\/+$/, ""),
    discordBaseUrl: (config.HOOKPLANE_DISCORD_BASE_URL ?? "https://discord.com/api/v10").replace(/\/+$/, ""),
  };
}
