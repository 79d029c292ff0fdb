/**
 * Importing a config file: the dialect layer reads it into canonical agents, hooks and schedules,
 * this module plans what that means for the stored config (create, update or skip each item,
 * agents that hooks name but nobody defines) and applies the plan in ONE transaction through the
 * audited services, so an import either happens whole or not at all, and each item gets its
 * audit row. A dry run returns the same plan without writing.
 */
import type { Db } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import { logAudit } from "@/db/queries/audit";
import { findHookByKey } from "@/db/queries/hooks";
import { createSchedule, listSchedules, updateSchedule, type ScheduleRow } from "@/db/queries/schedules";
import { createAgentAudited, updateAgentAudited } from "@/lib/features/agents/agent-service";
import { agentSpecSchema, type AgentSpec } from "@/lib/core/agent/agent-spec";
import type { Issue } from "@/lib/core/issues";
import { AppError } from "@/lib/platform/api/app-error";
import { unsafeInputIssues } from "@/lib/core/safe-input";
import { roleAtLeast, type Principal } from "@/lib/platform/auth/roles";
import {
  DialectParseError,
  detectDialect,
  importConfig,
  type DialectDetection,
  type DialectName,
  type DialectWarning,
  type ImportResult,
} from "@/lib/core/dialects";
import { createHookAudited, mayConfigureAction, replaceHookAudited } from "@/lib/features/hooks/hook-service";
import { loadEnforcementContext } from "@/lib/features/hooks/hook-enforcement";
import { enforcementOf, type Enforcement, type EnforcementContext } from "@/lib/core/hooks/enforcement";
import { parseHookSpec, type HookSpec } from "@/lib/core/hooks/spec";
import { toolsRunCode } from "@/lib/core/hooks/trust";
import { cronError, nextRunAt } from "@/lib/features/schedules/next-run";
import type { ImportRequest, OnConflict } from "./import-request";

/** `conflict`: exists already and `onConflict` is "fail" (only a dry run shows it; applying is a 409). */
export type ItemOutcome = "create" | "update" | "skip" | "conflict";

interface PlannedAgent {
  path: string;
  spec: AgentSpec;
  outcome: ItemOutcome;
  existingId?: string;
  /** Named by hooks or schedules but defined nowhere: created with defaults. */
  implicit: boolean;
}

interface PlannedHook {
  path: string;
  spec: HookSpec;
  outcome: ItemOutcome;
  existingId?: string;
}

interface PlannedSchedule {
  path: string;
  name: string;
  agent: string;
  timing: { cron?: string; intervalMs?: number };
  prompt: string;
  enabled: boolean;
  outcome: ItemOutcome;
  existingId?: string;
  hooks: PlannedHook[];
}

interface ImportPlan {
  dialect: DialectName;
  detected?: DialectDetection;
  agents: PlannedAgent[];
  hooks: PlannedHook[];
  schedules: PlannedSchedule[];
  warnings: DialectWarning[];
  conflicts: Issue[];
}

type Counts = { agents: string[]; hooks: number; schedules: number };

/** What the endpoint answers, for a dry run and a real one alike. */
export interface ImportSummary {
  dialect: DialectName;
  detected?: DialectDetection;
  dry: boolean;
  created: Counts;
  updated: Counts;
  skipped: Counts;
  agents: { path: string; name: string; outcome: ItemOutcome; implicit: boolean; id?: string }[];
  hooks: { path: string; id: string; name?: string; event: string; scope: string; action: string; matcher?: string; outcome: ItemOutcome; enforcement: Enforcement }[];
  /**
   * What of the file will not be enforced as it says, and why (shown in red): hooks that, once
   * imported, cannot run on this server (`not_enforced`, `fails_closed`), and what the dialect could
   * not carry: hooks of the file that are not imported (`not_imported`, no id) and hooks imported
   * without a condition or limit the file gave them (`changed`).
   */
  notEnforced: { path: string; id?: string; state: "not_enforced" | "fails_closed" | "not_imported" | "changed"; why: string }[];
  schedules: { path: string; name: string; agent: string; cron?: string; intervalMs?: number; outcome: ItemOutcome; hooks: number }[];
  /** Paths of what runs code (command/code hooks, shell tool hooks, agents with the shell): importing them takes the admin role. */
  requiresAdmin: string[];
  /** What exists already (a dry run under onConflict "fail"; applying it is a 409 with these issues). */
  conflicts: Issue[];
  warnings: DialectWarning[];
}

function invalid(message: string, issues: Issue[]): AppError {
  return new AppError("invalid_config", message, issues);
}

/** Reads the content in its dialect (detected when not given); malformed input is a 422 with the dialect's paths. */
function readConfig(request: ImportRequest): { dialect: DialectName; detected?: DialectDetection; result: ImportResult } {
  const content = typeof request.content === "string" ? request.content : request.content.files;
  let dialect = request.dialect;
  let detected: DialectDetection | undefined;
  if (!dialect) {
    detected = detectDialect(content);
    if (!detected.dialect) {
      throw invalid(`Could not tell the dialect of this config (${detected.why}); choose one`, [{ path: "dialect", message: detected.why }]);
    }
    dialect = detected.dialect;
  }
  if (typeof content !== "string" && dialect !== "standard-agents") {
    throw invalid(`A ${dialect} config is one text; only standard-agents takes {files}`, [{ path: "content", message: "expected the file's text" }]);
  }
  try {
    const result = importConfig(dialect, content, { agent: request.agent });
    // A YAML "\0" or a JSON "\u0000" in the file becomes text the database cannot store.
    const unsafe = unsafeInputIssues({ agents: result.agents, hooks: result.hooks, schedules: result.schedules });
    if (unsafe.length > 0) throw invalid(`This ${dialect} config has text that cannot be stored: ${unsafe[0].path}: ${unsafe[0].message}`, unsafe);
    return { dialect, detected, result };
  } catch (error) {
    // A parser recursing through a hostile nesting runs out of stack: the file's fault, not ours.
    if (error instanceof RangeError) throw invalid(`This ${dialect} config is nested too deeply to read`, [{ path: "content", message: "nested too deeply" }]);
    if (!(error instanceof DialectParseError)) throw error;
    const issues = error.issues.map((i) => ({
      path: i.path || "(root)",
      message: i.line && !/\bline \d/.test(i.message) ? `${i.message} (line ${i.line}${i.column ? `, column ${i.column}` : ""})` : i.message,
    }));
    throw invalid(`This ${dialect} config is invalid: ${issues[0] ? `${issues[0].path}: ${issues[0].message}` : error.message}`, issues);
  }
}

function conflictOutcome(policy: OnConflict): ItemOutcome {
  return policy === "update" ? "update" : policy === "skip" ? "skip" : "conflict";
}

function parsedHook(input: unknown, path: string): HookSpec {
  const parsed = parseHookSpec(input);
  if (parsed.success) return parsed.data;
  // The importers validate already; this only guards the contract.
  throw invalid(`${path}: ${parsed.error.issues[0]?.message}`, parsed.error.issues.map((i) => ({ path: `${path}.${i.path.join(".")}`, message: i.message })));
}

/** What importing `request` into the project would do; names are looked up in that project only. */
async function planImport(db: Db, projectId: string, request: ImportRequest): Promise<ImportPlan> {
  const { dialect, detected, result } = readConfig(request);
  const warnings = [...result.warnings];
  const conflicts: Issue[] = [];
  const problems: Issue[] = [];
  const policy = request.onConflict;

  // Agents: those of the file, then those only named by hooks or schedules.
  const existingAgentIds = new Map<string, string | undefined>();
  const agentIdOf = async (ref: string) => {
    if (!existingAgentIds.has(ref)) existingAgentIds.set(ref, (await getAgent(db, { projectId, ref }))?.id);
    return existingAgentIds.get(ref);
  };
  const agents: PlannedAgent[] = [];
  for (const [index, input] of result.agents.entries()) {
    const path = `agents[${index}]`;
    const spec = agentSpecSchema.parse(input);
    const existingId = await agentIdOf(spec.name);
    if (existingId) conflicts.push({ path: `${path}.name`, message: `an agent named "${spec.name}" already exists` });
    agents.push({ path, spec, outcome: existingId ? conflictOutcome(policy) : "create", existingId, implicit: false });
  }
  const ensureAgent = async (ref: string, path: string) => {
    if (agents.some((a) => a.spec.name === ref) || (await agentIdOf(ref))) return;
    const named = agentSpecSchema.safeParse({ name: ref });
    if (!named.success) {
      problems.push({ path, message: `"${ref}" is not a valid agent name` });
      return;
    }
    warnings.push({ path, message: `agent "${ref}" is not defined here and does not exist yet; it will be created with default settings (model scripted)` });
    agents.push({ path, spec: named.data, outcome: "create", implicit: true });
  };

  const schedulesByName = new Map<string, ScheduleRow[]>();
  for (const row of await listSchedules(db, { projectId })) {
    if (row.name) schedulesByName.set(row.name, [...(schedulesByName.get(row.name) ?? []), row]);
  }

  /** The stored form of a scope when its target exists already (so a same-id hook can clash). */
  const storedScopeOf = async (scope: string, path: string): Promise<string | undefined> => {
    if (scope === "global") return scope;
    if (scope.startsWith("agent:")) {
      const ref = scope.slice("agent:".length);
      await ensureAgent(ref, `${path}.scope`);
      const id = await agentIdOf(ref);
      return id ? `agent:${id}` : undefined;
    }
    const name = scope.slice("schedule:".length);
    const [schedule, ...more] = schedulesByName.get(name) ?? [];
    if (!schedule || more.length > 0) {
      problems.push({ path: `${path}.scope`, message: schedule ? `more than one schedule is named "${name}"` : `no schedule named "${name}" exists or is imported` });
      return undefined;
    }
    return `schedule:${schedule.id}`;
  };

  const planHook = async (input: unknown, path: string, storedScope: string | undefined): Promise<PlannedHook> => {
    const spec = parsedHook(input, path);
    const existing = storedScope ? await findHookByKey(db, { projectId, scope: storedScope, key: spec.id }) : undefined;
    if (existing) conflicts.push({ path: `${path}.id`, message: `a hook "${spec.id}" already exists in ${spec.scope}` });
    return { path, spec, outcome: existing ? conflictOutcome(policy) : "create", existingId: existing?.id };
  };

  const hooks: PlannedHook[] = [];
  for (const [index, input] of result.hooks.entries()) {
    const path = `hooks[${index}]`;
    const scope = parsedHook(input, path).scope;
    hooks.push(await planHook(input, path, await storedScopeOf(scope, path)));
  }

  const schedules: PlannedSchedule[] = [];
  for (const [index, input] of result.schedules.entries()) {
    const path = `schedules[${index}]`;
    await ensureAgent(input.agent, `${path}.agent`);
    if (input.cron) {
      const error = cronError(input.cron);
      if (error) problems.push({ path: `${path}.cron`, message: `invalid cron expression "${input.cron}": ${error}` });
    }
    const agentId = await agentIdOf(input.agent);
    const existing = agentId ? (schedulesByName.get(input.name) ?? []).find((s) => s.agentId === agentId) : undefined;
    if (existing) conflicts.push({ path: `${path}.name`, message: `agent "${input.agent}" already has a schedule named "${input.name}"` });
    const planned: PlannedSchedule = {
      path,
      name: input.name,
      agent: input.agent,
      timing: input.cron ? { cron: input.cron } : { intervalMs: input.intervalMs },
      prompt: input.prompt,
      enabled: input.enabled ?? true,
      outcome: existing ? conflictOutcome(policy) : "create",
      existingId: existing?.id,
      hooks: [],
    };
    for (const [j, hook] of (input.hooks ?? []).entries()) {
      planned.hooks.push(await planHook(hook, `${path}.hooks[${j}]`, existing ? `schedule:${existing.id}` : undefined));
    }
    schedules.push(planned);
  }

  if (problems.length > 0) throw invalid(`This ${dialect} config cannot be imported: ${problems[0].path}: ${problems[0].message}`, problems);
  if (conflicts.length > 0 && policy === "fail" && !request.dry) {
    throw new AppError("conflict",
      `${conflicts.length} item(s) already exist (${conflicts[0].message}); import again with onConflict "skip" to keep them or "update" to replace them`,
      conflicts,
    );
  }
  return { dialect, detected, agents, hooks, schedules, warnings, conflicts: policy === "fail" ? conflicts : [] };
}

function allHooksOf(plan: ImportPlan): PlannedHook[] {
  return [...plan.hooks, ...plan.schedules.flatMap((s) => s.hooks)];
}

/** The items `principal` may not write because they run code on the server (lib/core/hooks/trust.ts). */
function adminOnlyItems(plan: ImportPlan, principal: Pick<Principal, "role">): { path: string; label: string }[] {
  if (roleAtLeast(principal.role, "admin")) return [];
  return [
    ...plan.agents.filter((a) => a.outcome !== "skip" && toolsRunCode(a.spec.tools)).map((a) => ({ path: a.path, label: `${a.path} (agent ${a.spec.name}, shell tool)` })),
    ...allHooksOf(plan)
      .filter((h) => h.outcome !== "skip" && !mayConfigureAction(principal, h.spec.action))
      .map((h) => ({ path: h.path, label: `${h.path} (${h.spec.id}, ${h.spec.action.type})` })),
  ];
}

function summarize(plan: ImportPlan, dry: boolean, enforcement: EnforcementContext, agentIds: Map<string, string> = new Map()): ImportSummary {
  const enforcementOfHook = new Map(allHooksOf(plan).map((h) => [h, enforcementOf(h.spec, enforcement)]));
  const count = (outcome: ItemOutcome): Counts => ({
    agents: plan.agents.filter((a) => a.outcome === outcome).map((a) => a.spec.name),
    hooks: allHooksOf(plan).filter((h) => h.outcome === outcome).length,
    schedules: plan.schedules.filter((s) => s.outcome === outcome).length,
  });
  return {
    dialect: plan.dialect,
    ...(plan.detected ? { detected: plan.detected } : {}),
    dry,
    created: count("create"),
    updated: count("update"),
    skipped: count("skip"),
    agents: plan.agents.map((a) => ({
      path: a.path,
      name: a.spec.name,
      outcome: a.outcome,
      implicit: a.implicit,
      ...(agentIds.get(a.spec.name) ?? a.existingId ? { id: agentIds.get(a.spec.name) ?? a.existingId } : {}),
    })),
    hooks: allHooksOf(plan).map((h) => ({
      path: h.path,
      id: h.spec.id,
      ...(h.spec.name ? { name: h.spec.name } : {}),
      event: h.spec.event,
      scope: h.spec.scope,
      action: h.spec.action.type,
      ...(h.spec.matcher ? { matcher: h.spec.matcher } : {}),
      outcome: h.outcome,
      enforcement: enforcementOfHook.get(h)!,
    })),
    notEnforced: [
      ...allHooksOf(plan).flatMap((h) => {
        const e = enforcementOfHook.get(h)!;
        return h.outcome !== "skip" && (e.state === "not_enforced" || e.state === "fails_closed") ? [{ path: h.path, id: h.spec.id, state: e.state, why: e.why }] : [];
      }),
      ...plan.warnings.flatMap((w) => (w.enforcement ? [{ path: w.path, state: w.enforcement, why: w.message }] : [])),
    ],
    schedules: plan.schedules.map((s) => ({ path: s.path, name: s.name, agent: s.agent, ...s.timing, outcome: s.outcome, hooks: s.hooks.length })),
    requiresAdmin: adminOnlyItems(plan, { role: "viewer" }).map((item) => item.path),
    conflicts: plan.conflicts,
    warnings: plan.warnings,
  };
}

async function writeHook(tx: Db, principal: Principal, hook: PlannedHook, scope: string) {
  if (hook.outcome === "create") await createHookAudited(tx, principal, { ...hook.spec, scope });
  else if (hook.outcome === "update") await replaceHookAudited(tx, principal, hook.existingId!, { ...hook.spec, scope });
}

async function writeSchedule(tx: Db, principal: Principal, schedule: PlannedSchedule): Promise<string> {
  const agent = await getAgent(tx, { projectId: principal.projectId, ref: schedule.agent });
  const values = {
    name: schedule.name,
    agentId: agent!.id,
    cron: schedule.timing.cron ?? null,
    intervalMs: schedule.timing.intervalMs ?? null,
    prompt: schedule.prompt,
    enabled: schedule.enabled,
    nextRunAt: schedule.enabled ? (nextRunAt(schedule.timing, new Date()) ?? null) : null,
  };
  if (schedule.outcome === "skip") return schedule.existingId!;
  if (schedule.outcome === "update") {
    const row = await updateSchedule(tx, { projectId: principal.projectId, id: schedule.existingId!, values });
    await logAudit(tx, { projectId: principal.projectId, actor: principal.label, action: "schedule.update", entityType: "schedule", entityId: row.id, after: row });
    return row.id;
  }
  const row = await createSchedule(tx, { projectId: principal.projectId, ...values });
  await logAudit(tx, { projectId: principal.projectId, actor: principal.label, action: "schedule.create", entityType: "schedule", entityId: row.id, after: row });
  return row.id;
}

/**
 * Plans the import and, unless `dry`, applies it. Operators may import; command and code hooks
 * take an admin (checked for the whole file before anything is written).
 */
export async function importConfigAudited(db: Db, principal: Principal, request: ImportRequest): Promise<ImportSummary> {
  const plan = await planImport(db, principal.projectId, request);
  const enforcement = await loadEnforcementContext(db, principal.projectId);
  const preview = summarize(plan, request.dry, enforcement);
  if (request.dry) return preview;
  const adminOnly = adminOnlyItems(plan, principal);
  if (adminOnly.length > 0) {
    const list = adminOnly.map((item) => item.label).join(", ");
    throw AppError.forbidden(
      `Only admins may import what runs code on the server (command and code hooks, tool hooks calling the shell, agents with the shell tool): ${list}. You are ${principal.role}.`,
    );
  }

  const agentIds = new Map<string, string>();
  await db.transaction(async (tx) => {
    for (const agent of plan.agents) {
      if (agent.outcome === "create") agentIds.set(agent.spec.name, (await createAgentAudited(tx, principal, agent.spec)).id);
      else if (agent.outcome === "update") agentIds.set(agent.spec.name, (await updateAgentAudited(tx, principal, agent.existingId!, agent.spec, { replace: true })).id);
    }
    for (const hook of plan.hooks) {
      const scope = hook.spec.scope.startsWith("schedule:") ? await scheduleScope(tx, principal.projectId, hook.spec.scope) : hook.spec.scope;
      await writeHook(tx, principal, hook, scope);
    }
    for (const schedule of plan.schedules) {
      const id = await writeSchedule(tx, principal, schedule);
      for (const hook of schedule.hooks) await writeHook(tx, principal, hook, `schedule:${id}`);
    }
  });
  return summarize(plan, false, enforcement, agentIds);
}

/** A top-level hook's `schedule:<name>` scope, for a schedule that existed before the import (checked by the plan). */
async function scheduleScope(tx: Db, projectId: string, scope: string): Promise<string> {
  const name = scope.slice("schedule:".length);
  const row = (await listSchedules(tx, { projectId })).find((s) => s.name === name);
  return `schedule:${row!.id}`;
}
