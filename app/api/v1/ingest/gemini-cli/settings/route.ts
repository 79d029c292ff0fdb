import { settingsRoute } from "@/lib/features/config-io/agent-installs";

/** An agent's settings for this coding agent, for `hookplane install` and `doctor` with a bridge credential. */
export const GET = settingsRoute("gemini-cli");
