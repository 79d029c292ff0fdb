/**
 * Alert rules through the API and the dashboard: validated (one schema for both), the agent named
 * resolved, email targets refused while no SMTP server is configured, each change with its audit
 * row in one transaction. Reads are everyone's; writes are the admin's (targets name secrets and
 * send to the outside).
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { getAgent } from "@/db/queries/agents";
import {
  createAlertRule,
  deleteAlertRule,
  getAlertRule,
  getAlertRuleByName,
  listAlertEvents,
  listAlertRules,
  updateAlertRule,
  type AlertEventRow,
  type AlertRuleValues,
  type AlertRuleWithAgent,
} from "@/db/queries/alerts";
import { audited } from "@/db/queries/audit";
import type { AlertTarget } from "@/db/schema";
import type { Issue } from "@/lib/core/issues";
import { fieldsOf } from "@/lib/core/null-fields";
import { AppError, validationError } from "@/lib/platform/api/app-error";
import { paginate } from "@/lib/platform/api/cursor";
import type { Principal } from "@/lib/platform/auth/roles";
import { alertConfig, type SmtpConfig } from "./alert-config";
import { ALERT_KIND_INFO, alertRuleSchema, type AlertRuleInput, type AlertRulePatch } from "./alert-rules";

export function alertRuleToApi(row: AlertRuleWithAgent) {
  return {
    ...fieldsOf(row, ["id", "name", "kind"]),
    agent: row.agentName ?? undefined,
    ...fieldsOf(row, [
      "agentId", "windowMinutes", "waitMinutes", "threshold", "cooldownMinutes", "targets", "enabled",
      "state", "stateChangedAt", "lastFiredAt", "lastNotifiedAt", "lastValue", "lastEvaluatedAt", "createdAt", "updatedAt",
    ]),
  };
}
export type AlertRuleResource = ReturnType<typeof alertRuleToApi>;

export function alertEventToApi(row: AlertEventRow) {
  return {
    id: row.id,
    ruleId: row.ruleId,
    state: row.state,
    reminder: row.reminder,
    value: row.value,
    threshold: row.threshold,
    message: row.message,
    at: row.at,
    notified: row.notified ?? undefined,
  };
}
export type AlertEventResource = ReturnType<typeof alertEventToApi>;

/** What the audit row records: the rule as configured (target secrets by name only, as stored). */
function configured(row: AlertRuleWithAgent | AlertRuleValues & { agentName?: string | null }) {
  return {
    ...fieldsOf(row, ["name", "kind"]),
    agent: row.agentName ?? undefined,
    ...fieldsOf(row, ["windowMinutes", "waitMinutes", "threshold", "cooldownMinutes", "targets", "enabled"]),
  };
}

/** A rule of the project; another project's answers 404 like a missing one. */
export async function findAlertRuleOr404(db: Db, projectId: string, id: string): Promise<AlertRuleWithAgent> {
  const row = z.uuid().safeParse(id).success ? await getAlertRule(db, { projectId, id }) : undefined;
  if (!row) throw AppError.notFound(`Alert rule "${id}"`);
  return row;
}

export async function listAlertRulesForApi(db: Db, projectId: string) {
  return (await listAlertRules(db, { projectId })).map(alertRuleToApi);
}

export async function listAlertEventsForApi(db: Db, projectId: string, id: string, page: { limit: number; cursor?: { id: number } }) {
  const rule = await findAlertRuleOr404(db, projectId, id);
  const rows = await listAlertEvents(db, { ruleId: rule.id, limit: page.limit + 1, beforeId: page.cursor?.id });
  const { items, nextCursor } = paginate(rows, page.limit, (r) => ({ id: r.id }));
  return { items: items.map(alertEventToApi), nextCursor };
}

/** The stored values of a checked rule: the agent resolved in the project (422 at `agent` when there is none), email only with SMTP. */
async function ruleValues(db: Db, projectId: string, input: AlertRuleInput, smtp: SmtpConfig | undefined): Promise<AlertRuleValues & { agentName: string | null }> {
  const issues: Issue[] = [];
  let agent: { id: string; name: string } | undefined;
  if (input.agent !== undefined) {
    agent = await getAgent(db, { projectId, ref: input.agent });
    if (!agent) issues.push({ path: "agent", message: `no agent named "${input.agent}"` });
  }
  input.targets.forEach((target, i) => {
    if (target.type === "email" && !smtp) issues.push({ path: `targets[${i}].type`, message: "email needs an SMTP server: set HOOKPLANE_SMTP_HOST (and its port, sender and credentials)" });
  });
  if (issues.length) throw AppError.invalid(issues);
  const parameter = ALERT_KIND_INFO[input.kind].parameter;
  return {
    name: input.name,
    kind: input.kind,
    agentId: agent?.id ?? null,
    agentName: agent?.name ?? null,
    windowMinutes: parameter === "window" ? (input.windowMinutes ?? null) : null,
    waitMinutes: parameter === "wait" ? (input.waitMinutes ?? null) : null,
    threshold: input.threshold,
    cooldownMinutes: input.cooldownMinutes,
    targets: input.targets as AlertTarget[],
    enabled: input.enabled,
  };
}

export async function createAlertRuleAudited(db: Db, principal: Principal, input: AlertRuleInput, smtp = alertConfig().smtp) {
  const row = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "alert.create", entityType: "alert" },
    async (tx) => {
      const values = await ruleValues(tx, principal.projectId, input, smtp);
      const { agentName: _agentName, ...stored } = values;
      const created = await createAlertRule(tx, { ...stored, projectId: principal.projectId });
      if (!created) throw AppError.conflict(`An alert rule named "${input.name}" exists already`);
      return { ...created, agentName: values.agentName };
    },
    (created) => ({ entityId: created.id, after: configured(created) }),
  );
  return alertRuleToApi(row);
}

/** The rule as its form or a full request would give it, so a patch can be checked as a whole. */
function asInput(row: AlertRuleWithAgent): Record<string, unknown> {
  // By id: the agent may have been renamed since.
  return { ...configured(row), agent: row.agentId ?? undefined };
}

/** The stored rule with the patch applied (null clears); a new kind drops the parameter only the old one had. */
export function mergeAlertPatch(row: AlertRuleWithAgent, patch: AlertRulePatch): unknown {
  const merged = asInput(row);
  for (const [key, value] of Object.entries(patch)) if (value !== undefined) merged[key] = value ?? undefined;
  if (patch.kind && patch.kind !== row.kind) {
    const parameter = ALERT_KIND_INFO[patch.kind].parameter;
    if (parameter !== "wait" && patch.waitMinutes === undefined) merged.waitMinutes = undefined;
    if (parameter !== "window" && patch.windowMinutes === undefined) merged.windowMinutes = undefined;
  }
  return merged;
}

export async function updateAlertRuleAudited(db: Db, principal: Principal, id: string, patch: AlertRulePatch, smtp = alertConfig().smtp) {
  const row = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "alert.update", entityType: "alert" },
    async (tx) => {
      const before = await findAlertRuleOr404(tx, principal.projectId, id);
      const parsed = alertRuleSchema.safeParse(mergeAlertPatch(before, patch));
      if (!parsed.success) throw validationError(parsed.error);
      const values = await ruleValues(tx, principal.projectId, parsed.data, smtp);
      if (values.name !== before.name && (await getAlertRuleByName(tx, { projectId: principal.projectId, name: values.name }))) {
        throw AppError.conflict(`An alert rule named "${values.name}" exists already`);
      }
      const { agentName, ...stored } = values;
      const updated = await updateAlertRule(tx, { projectId: principal.projectId, id: before.id, values: stored });
      return { before, after: { ...updated!, agentName } };
    },
    ({ before, after }) => ({ entityId: before.id, before: configured(before), after: configured(after) }),
  );
  return alertRuleToApi(row.after);
}

export async function deleteAlertRuleAudited(db: Db, principal: Principal, id: string) {
  await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "alert.delete", entityType: "alert" },
    async (tx) => {
      const row = await findAlertRuleOr404(tx, principal.projectId, id);
      await deleteAlertRule(tx, { projectId: principal.projectId, id: row.id });
      return row;
    },
    (row) => ({ entityId: row.id, before: configured(row) }),
  );
}
