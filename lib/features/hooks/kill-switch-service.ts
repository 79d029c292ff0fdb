/**
 * The kill switch (hook-model.md, Trust): one instance setting that disables every hook of every
 * project at once, an instance admin's to flip, with an instance-level audit row for each change.
 */
import type { Db } from "@/db/client";
import { audited } from "@/db/queries/audit";
import { getKillSwitchState, setKillSwitch } from "@/db/queries/settings";
import { assertNotOwnGovernance } from "@/lib/platform/auth/own-governance";
import type { Principal } from "@/lib/platform/auth/roles";

export async function setKillSwitchAudited(db: Db, principal: Principal, enabled: boolean) {
  // Switching every hook off frees one's own coding agents too (own-governance.ts).
  if (enabled) await assertNotOwnGovernance(db, principal, [{ kind: "kill-switch" }]);
  const { after } = await audited(
    db,
    { projectId: null, actor: principal.label, action: "settings.kill_switch", entityType: "setting", entityId: "hooks_kill_switch" },
    async (tx) => ({ before: await getKillSwitchState(tx), after: await setKillSwitch(tx, { enabled }) }),
    ({ before, after }) => ({ before: { enabled: before.enabled }, after: { enabled: after.enabled } }),
  );
  return after;
}
