/**
 * Project B for the authorization matrix (app/authorization-matrix.db.test.ts): a second project
 * with its own admin (not an instance admin), tokens of every role and one of everything a project
 * owns, written in SQL so the world does not depend on the services under test. And what the
 * matrix measures project A by: a fingerprint of its rows, and the ids and names that must never
 * reach B.
 */
import type { DbHandle } from "@/db/client";
import type { Role } from "@/db/schema";
import { openSession } from "@/lib/platform/auth/account-service";
import type { TestDatabase } from "@/test/database";
import { addPerson, addProject, addToken } from "@/test/people";
import type { HostileWorld } from "./route-fixtures";

export interface ProjectBWorld {
  projectId: string;
  tokens: Record<Role, string>;
  adminSession: string;
  ids: { agent: string; hook: string; run: string; approval: string; alert: string };
  /** Each server action's input naming A's things (ids, names), by action name. */
  actionInputsNaming(a: HostileWorld): Record<string, Record<string, unknown>>;
}

async function one<T = Record<string, unknown>>(t: Pick<DbHandle, "execute">, text: string, params: unknown[] = []): Promise<T> {
  return (await t.execute(text, params)).rows[0] as T;
}

export async function buildProjectB(t: TestDatabase): Promise<ProjectBWorld> {
  const project = await addProject(t.db, { slug: "team-b", name: "Team B" });
  const admin = await addPerson(t.db, { email: "b-admin@example.com", role: "admin", projectId: project.id });
  const tokens = {} as Record<Role, string>;
  for (const role of ["viewer", "operator", "admin"] as const) tokens[role] = (await addToken(t.db, { role, projectId: project.id, userId: admin.id, name: `b-${role}` })).token;
  const adminSession = await openSession(t.db, { userId: admin.id });
  const agent = await one<{ id: string }>(t, "insert into agents (project_id, name, model, max_turns, timeout_ms) values ($1, 'b-agent', 'scripted', 3, 60000) returning id", [project.id]);
  const hookSpec = { id: "b-guard", scope: "global", event: "tool.pre", matcher: "^b-never$", action: { type: "block", reason: "b" }, enabled: true, mode: "enforce" };
  const hook = await one<{ id: string }>(t, "insert into hooks (project_id, key, scope, event, spec) values ($1, 'b-guard', 'global', 'tool.pre', $2) returning id", [project.id, JSON.stringify(hookSpec)]);
  await t.execute("insert into hook_versions (hook_id, version, spec, created_by) values ($1, 1, $2, 'b')", [hook.id, JSON.stringify(hookSpec)]);
  const run = await one<{ id: string }>(t, "insert into runs (project_id, agent_id, prompt, status, last_seq) values ($1, $2, 'b prompt', 'waiting_approval', 1) returning id", [project.id, agent.id]);
  await t.execute("insert into run_events (run_id, seq, type, data) values ($1, 1, 'tool.pre', '{}')", [run.id]);
  const approval = await one<{ id: string }>(t, "insert into approvals (project_id, run_id, hook_key, tool_name, tool_call_id) values ($1, $2, 'b-ask', 'shell', 'b1') returning id", [project.id, run.id]);
  await t.execute("insert into secrets (project_id, name, ciphertext) values ($1, 'B_SECRET', 'sealed')", [project.id]);
  const alert = await one<{ id: string }>(t, "insert into alert_rules (project_id, name, kind, window_minutes, threshold, cooldown_minutes, enabled) values ($1, 'b-alert', 'cost', 60, 5, 60, false) returning id", [project.id]);
  return {
    projectId: project.id,
    tokens,
    adminSession,
    ids: { agent: agent.id, hook: hook.id, run: run.id, approval: approval.id, alert: alert.id },
    actionInputsNaming: (a) => actionInputsNaming(a),
  };
}

/** The server actions whose input can name something of A, with A's ids and names in it. */
function actionInputsNaming(a: HostileWorld): Record<string, Record<string, unknown>> {
  const hook = { id: "fuzz-block", scope: "global", event: "tool.pre", matcher: "^fuzz-other$", action: { type: "block", reason: "r" } };
  return {
    deleteAgentAction: { id: a.doomed.agent },
    saveHookAction: { spec: JSON.stringify(hook), hookId: a.ids.hook, version: "1" },
    deleteHookAction: { id: a.doomed.hook },
    setHookEnabledAction: { id: a.ids.hook, enabled: false },
    moveHookAction: { id: a.ids.hook, direction: "up", visibleIds: [a.ids.hook] },
    restoreHookVersionAction: { id: a.ids.hook, version: 1 },
    startRunAction: { agent: a.ids.agent, prompt: "p" },
    cancelRunAction: { id: a.ids.run },
    decideApprovalAction: { id: a.ids.approval, decision: "deny", reason: "r" },
    createAlertRuleAction: { name: "b-made", kind: "cost", agent: a.agentName, windowMinutes: "60", threshold: "5", cooldownMinutes: "60", targets: "[]", enabled: "" },
    updateAlertRuleAction: { id: a.ids.alert, name: "fuzz-alert", kind: "runs_blocked", windowMinutes: "30", threshold: "1", cooldownMinutes: "60", targets: "[]" },
    deleteAlertRuleAction: { id: a.doomed.alert },
    createScheduleAction: { agent: a.ids.agent, name: "n", timing: "interval", intervalMs: "60000", prompt: "p" },
    deleteScheduleAction: { id: a.doomed.schedule },
    deleteSecretAction: { name: a.secretName },
    revokeTokenAction: { id: a.doomed.token },
    setKillSwitchAction: { enabled: true },
    updateProviderAction: { id: a.ids.provider, name: "Fuzz IdP", issuer: "https://idp.example.com", clientId: "fuzz", clientSecret: "", scopes: "openid", groupsClaim: "groups", roleMappings: "", defaultRole: "viewer" },
    deleteProviderAction: { id: a.doomed.provider },
    setPasswordSignInAction: { passwordSignIn: "" },
    // People and projects: A's member and the default project, from B's admin.
    switchProjectAction: { slug: "default" },
    changeMemberRoleAction: { userId: a.ids.user, role: "admin" },
    removeMemberAction: { userId: a.ids.user },
    setInstanceAdminAction: { id: a.ids.user, instanceAdmin: "on" },
    removeUserAction: { id: a.ids.user },
    renameProjectAction: { slug: "default", name: "Taken" },
    deleteProjectAction: { slug: "default" },
  };
}

/** Project-owned tables (their rows carry project_id). */
const OWNED = ["agents", "hooks", "schedules", "runs", "approvals", "secrets", "model_prices", "alert_rules", "memory_notes", "api_tokens", "audit_log", "hook_invocations"];
/** Left out: a token's last use, and the chain positions the sealer fills in (any request may seal). */
const row = (alias: string) => `(to_jsonb(${alias}) - 'last_used_at' - 'chain_seq' - 'hash')::text`;
const digest = (alias: string) => `md5(coalesce(string_agg(${row(alias)}, ',' order by ${row(alias)}), ''))`;

/**
 * A digest per table of what project `projectId` owns, what hangs off it (events, transcripts,
 * notices, versions, alert history, memberships), and what belongs to the instance (people,
 * providers, settings), which no project's admin may change either.
 */
export async function fingerprintProject(t: Pick<DbHandle, "execute">, projectId: string): Promise<Record<string, string>> {
  const parts = [
    ...OWNED.map((table) => `select '${table}' as k, ${digest("x")} as d from ${table} x where x.project_id = $1`),
    `select 'run_events' as k, ${digest("x")} as d from run_events x join runs r on r.id = x.run_id where r.project_id = $1`,
    `select 'run_messages' as k, ${digest("x")} as d from run_messages x join runs r on r.id = x.run_id where r.project_id = $1`,
    `select 'approval_notices' as k, ${digest("x")} as d from approval_notices x join approvals p on p.id = x.approval_id where p.project_id = $1`,
    `select 'hook_versions' as k, ${digest("x")} as d from hook_versions x join hooks h on h.id = x.hook_id where h.project_id = $1`,
    `select 'alert_events' as k, ${digest("x")} as d from alert_events x join alert_rules r on r.id = x.rule_id where r.project_id = $1`,
    `select 'project_members' as k, ${digest("x")} as d from project_members x where x.project_id = $1`,
    `select 'projects' as k, ${digest("x")} as d from projects x where x.id = $1`,
    `select 'users' as k, ${digest("x")} as d from users x where x.instance_admin or x.id in (select user_id from project_members where project_id = $1)`,
    `select 'instance hooks' as k, ${digest("x")} as d from hooks x where x.project_id is null`,
    `select 'instance audit' as k, ${digest("x")} as d from audit_log x where x.project_id is null`,
    `select 'settings' as k, ${digest("x")} as d from settings x`,
    `select 'oidc_providers' as k, ${digest("x")} as d from oidc_providers x`,
  ];
  const { rows } = await t.execute(parts.join("\nunion all\n"), [projectId]);
  return Object.fromEntries(rows.map((r) => [String(r.k), String(r.d)]));
}

/** What of project `projectId` must never reach another project: its ids and distinctive names. */
export async function markersOf(t: Pick<DbHandle, "execute">, projectId: string): Promise<string[]> {
  const { rows } = await t.execute(
    `select id::text as m from agents where project_id = $1
     union select name from agents where project_id = $1
     union select id::text from hooks where project_id = $1
     union select key from hooks where project_id = $1
     union select id::text from schedules where project_id = $1
     union select id::text from runs where project_id = $1
     union select prompt from runs where project_id = $1
     union select id::text from approvals where project_id = $1
     union select name from secrets where project_id = $1
     union select id::text from alert_rules where project_id = $1
     union select name from alert_rules where project_id = $1
     union select id::text from api_tokens where project_id = $1
     union select u.email from users u join project_members m on m.user_id = u.id and m.project_id = $1 where not u.instance_admin`,
    [projectId],
  );
  // Short, common words would match by chance; ids and real names are long enough.
  return rows.map((r) => String(r.m)).filter((m) => m.length >= 6);
}
