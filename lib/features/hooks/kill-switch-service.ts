/**
 * The kill switch (hook-model.md, Trust): one setting that disables every hook at once, with an
 * audit row for each change.
 */
import type { Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { getKillSwitchState, setKillSwitch } from "@/db/queries/settings";
import type { Principal } from "@/lib/platform/auth/roles";

export async function setKillSwitchAudited(db: Db, principal: Principal, enabled: boolean) {
  const { after } = await audited(
    db,
    { actor: principal.label, action: "settings.kill_switch", entityType: "setting", entityId: "hooks_kill_switch" },
    async (tx) => ({ before: await getKillSwitchState(tx), after: await setKillSwitch(tx, { enabled }) }),
    ({ before, after }) => ({ before: { enabled: before.enabled }, after: { enabled: after.enabled } }),
  );
  return after;
}
