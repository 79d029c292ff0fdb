import { recordInstallRoute } from "@/lib/features/config-io/agent-installs";

/** `hookplane install` records the machine it installed an agent's settings on. */
export const POST = recordInstallRoute;
