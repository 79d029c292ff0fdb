/**
 * The settings of approvals outside the dashboard, from the configuration module
 * (lib/platform/config): where people reach the dashboard, the Slack app's signing secret, and
 * where Slack and Discord messages are posted and updated (tests point them at local servers).
 */
import { getConfig, type Config } from "@/lib/platform/config/config";

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

export function reachConfig(config: ReachVariables = getConfig()): ReachConfig {
  // Unset, links name this machine as the server listens on it (only useful on this machine).
  const host = config.HOSTNAME === "0.0.0.0" || config.HOSTNAME === "::" ? "127.0.0.1" : config.HOSTNAME;
  const publicUrl = config.HOOKPLANE_PUBLIC_URL ?? `http://${host}:${config.PORT}`;
  return {
    publicUrl: publicUrl.replace(/\/+$/, ""),
    slackSigningSecret: config.HOOKPLANE_SLACK_SIGNING_SECRET,
    slackBaseUrl: (config.HOOKPLANE_SLACK_BASE_URL ?? "https://slack.com/api").replace(/\/+$/, ""),
    discordBaseUrl: (config.HOOKPLANE_DISCORD_BASE_URL ?? "https://discord.com/api/v10").replace(/\/+$/, ""),
  };
}
