import { getConfig, type Config } from "./config";

/**
 * Where people reach the dashboard, without a trailing slash: `HOOKPLANE_PUBLIC_URL`, or this
 * machine as the server listens on it (only useful on this machine). Links in notices and the
 * single sign-on callback start with it.
 */
export function publicUrl(config: Pick<Config, "HOOKPLANE_PUBLIC_URL" | "HOSTNAME" | "PORT"> = getConfig()): string {
  const host = config.HOSTNAME === "0.0.0.0" || config.HOSTNAME === "::" ? "127.0.0.1" : config.HOSTNAME;
  return (config.HOOKPLANE_PUBLIC_URL ?? `http://${host}:${config.PORT}`).replace(/\/+$/, "");
}
