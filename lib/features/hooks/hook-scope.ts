/**
 * Scopes as people write them (`agent:coding-agent`) and as they are stored (`agent:<uuid>`), so a
 * renamed agent keeps its hooks and the runtime compares ids.
 */
import type { Db } from "@/db/client";
import type { HookOwner } from "@/db/queries/hooks";
import { getAgent } from "@/db/queries/agents";
import { getSchedule } from "@/db/queries/schedules";
import { getUserByEmail, getUserById } from "@/db/queries/users";
import { AppError } from "@/lib/platform/api/app-error";
import { isUuid } from "./schema";

function scopeError(message: string): AppError {
  return new AppError("validation_failed", `scope: ${message}`, [{ path: "scope", message }]);
}

/**
 * `global`, `agent:<uuid>` or `schedule:<uuid>` of the owner's project; a 422 at `scope` when the
 * target does not exist there. An instance-wide hook (owner null) is `global`: agents and schedules
 * belong to one project, whose own hooks are the place for them.
 */
export async function resolveHookScope(db: Db, params: { projectId: HookOwner; scope: string }): Promise<string> {
  const { projectId, scope } = params;
  if (scope === "global") return scope;
  if (projectId === null) throw scopeError('an instance-wide hook has scope "global" (agents, schedules, groups and people are governed in a project: give them project hooks)');
  const colon = scope.indexOf(":");
  const kind = colon > 0 ? scope.slice(0, colon) : scope;
  const ref = colon > 0 ? scope.slice(colon + 1) : "";
  if (kind === "agent") {
    const agent = ref ? await getAgent(db, { projectId, ref }) : undefined;
    if (!agent) throw scopeError(`no agent has the id or name "${ref}"`);
    return `agent:${agent.id}`;
  }
  if (kind === "schedule") {
    const schedule = isUuid(ref) ? await getSchedule(db, { projectId, id: ref }) : undefined;
    if (!schedule) throw scopeError(`no schedule has the id "${ref}"`);
    return `schedule:${schedule.id}`;
  }
  if (kind === "person") {
    // Stored by user id, so a changed email keeps the rule; a person who is no one here is refused.
    const user = ref ? (isUuid(ref) ? await getUserById(db, { id: ref }) : await getUserByEmail(db, { email: ref })) : undefined;
    if (!user) throw scopeError(`no person has the email or user id "${ref}"`);
    return `person:${user.id}`;
  }
  if (kind === "group") {
    const group = ref.trim();
    if (!group || group.length > 200) throw scopeError("name the single sign-on group (up to 200 characters)");
    return `group:${group}`;
  }
  throw scopeError('scope is "global", "agent:<id or name>", "schedule:<id>", "group:<single sign-on group>" or "person:<email or user id>"');
}
