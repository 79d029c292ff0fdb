/**
 * The settings of approvals outside the dashboard, read from the environment in this one function
 * so the configuration module (issue 12) can take them over whole:
 * - `HOOKPLANE_PUBLIC_URL`: where people reach the dashboard; links in notices start with it.
 *   Unset: `http://127.0.0.1:<PORT>`, which only works on this machine.
 * - `HOOKPLANE_SLACK_SIGNING_SECRET`: the Slack app's signing secret. Set, Slack approval messages
 *   get interactive buttons and /api/integrations/slack/interactions verifies their callbacks;
 *   unset, the buttons open the decision pages instead and the endpoint answers 404.
 * - `HOOKPLANE_SLACK_BASE_URL`, `HOOKPLANE_DISCORD_BASE_URL`: where messages are updated (the
 *   same as where notices are posted; tests point them at local servers).
 */
export interface ReachConfig {
  publicUrl: string;
  slackSigningSecret: string | undefined;
  slackBaseUrl: string;
  discordBaseUrl: string;
}

export function reachConfigFromEnv(env: Record<string, string | undefined> = process.env): ReachConfig {
  const host = !env.HOSTNAME || env.HOSTNAME === "0.0.0.0" || env.HOSTNAME === "::" ? "127.0.0.1" : env.HOSTNAME;
  const publicUrl = env.HOOKPLANE_PUBLIC_URL?.trim() || `http://${host}:${env.PORT || "3000"}`;
  return {
    publicUrl: publicUrl.replace(/\/+$/, ""),
    slackSigningSecret: env.HOOKPLANE_SLACK_SIGNING_SECRET?.trim() || undefined,
    slackBaseUrl: (env.HOOKPLANE_SLACK_BASE_URL ?? "https://slack.com/api").replace(/\/+$/, ""),
    discordBaseUrl: (env.HOOKPLANE_DISCORD_BASE_URL ?? "https://discord.com/api/v10").replace(/\/+$/, ""),
  };
}
