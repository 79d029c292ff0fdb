import { getKillSwitchState } from "@/db/queries/settings";
import { apiRoute } from "@/lib/platform/api/route";
import { killSwitchSchema } from "@/lib/features/hooks/schema";
import { setKillSwitchAudited } from "@/lib/features/hooks/kill-switch-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db }) => getKillSwitchState(db));

/** Every project's hooks stop or run again: an instance admin's switch. */
export const PUT = apiRoute({ role: "instance", body: killSwitchSchema }, async ({ db, body, principal }) =>
  setKillSwitchAudited(db, principal, body.enabled),
);
