/**
 * Scopes as people write them (`agent:coding-agent`) and as they are stored (`agent:<uuid>`), so a
 * renamed agent keeps its hooks and the runtime compares ids.
 */
import type { Db } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { getSchedule } from "@/db/queries/schedules";
import { AppError } from "@/lib/platform/api/app-error";
import { isUuid } from "./hook-requests";

function scopeError(message: string): AppError {
  return new AppError("validation_failed", `scope: ${message}`, [{ path: "scope", message }]);
}

/** `global`, `agent:<uuid>` or `schedule:<uuid>`; a 422 at `scope` when the target does not exist. */
export async function resolveHookScope(db: Db, scope: string): Promise<string> {
  if (scope === "global") return scope;
  const colon = scope.indexOf(":");
  const kind = colon > 0 ? scope.slice(0, colon) : scope;
  const ref = colon > 0 ? scope.slice(colon + 1) : "";
  if (kind === "agent") {
    const agent = ref ? await getAgent(db, { ref }) : undefined;
    if (!agent) throw scopeError(`no agent has the id or name "${ref}"`);
    return `agent:${agent.id}`;
  }
  if (kind === "schedule") {
    const schedule = isUuid(ref) ? await getSchedule(db, { id: ref }) : undefined;
    if (!schedule) throw scopeError(`no schedule has the id "${ref}"`);
    return `schedule:${schedule.id}`;
  }
  throw scopeError('scope is "global", "agent:<id or name>" or "schedule:<id>"');
}
