import { getKillSwitchState } from "@/db/queries/settings";
import { apiRoute } from "@/lib/api/route";
import { killSwitchSchema } from "@/lib/hooks-config/hook-requests";
import { setKillSwitchAudited } from "@/lib/hooks-config/kill-switch-service";

export const GET = apiRoute({ role: "viewer" }, async ({ db }) => getKillSwitchState(db));

export const PUT = apiRoute({ role: "admin", body: killSwitchSchema }, async ({ db, body, principal }) =>
  setKillSwitchAudited(db, principal, body.enabled),
);
