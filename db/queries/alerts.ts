/**
 * Alert rules, their history, and the metrics they watch. A rule's state moves only through the
 * conditional UPDATEs below (claimFiring, claimReminder, claimResolve): each re-checks in its WHERE
 * what the evaluator saw, so of two evaluators that saw the same thing at once only one wins, and
 * the winner writes the history row in the same transaction.
 */
import { and, desc, eq, gte, isNotNull, isNull, lt, lte, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { agents, alertEvents, alertRules, approvals, hookInvocations, offlineDecisions, runs, type AlertDelivery } from "../schema";
import { findInProject } from "./project-rows";

export type AlertRuleRow = typeof alertRules.$inferSelect;
export type AlertRuleWithAgent = AlertRuleRow & { agentName: string | null };
export type AlertEventRow = typeof alertEvents.$inferSelect;

const withAgent = { rule: alertRules, agentName: agents.name };

export async function listAlertRules(db: Db, params: { projectId: string }): Promise<AlertRuleWithAgent[]> {
  const rows = await db
    .select(withAgent)
    .from(alertRules)
    .leftJoin(agents, eq(agents.id, alertRules.agentId))
    .where(eq(alertRules.projectId, params.projectId))
    .orderBy(alertRules.name);
  return rows.map((r) => ({ ...r.rule, agentName: r.agentName }));
}

/** Every project's enabled rules, for the evaluator: each is measured in its own project. */
export async function listEnabledAlertRulesInAllProjects(db: Db): Promise<AlertRuleWithAgent[]> {
  const rows = await db
    .select(withAgent)
    .from(alertRules)
    .leftJoin(agents, eq(agents.id, alertRules.agentId))
    .where(eq(alertRules.enabled, true))
    .orderBy(alertRules.projectId, alertRules.name);
  return rows.map((r) => ({ ...r.rule, agentName: r.agentName }));
}

export async function getAlertRule(db: Db, params: { projectId: string; id: string }): Promise<AlertRuleWithAgent | undefined> {
  const [row] = await db
    .select(withAgent)
    .from(alertRules)
    .leftJoin(agents, eq(agents.id, alertRules.agentId))
    .where(and(eq(alertRules.id, params.id), eq(alertRules.projectId, params.projectId)));
  return row && { ...row.rule, agentName: row.agentName };
}

export async function getAlertRuleByName(db: Db, params: { projectId: string; name: string }) {
  return findInProject(db, alertRules, params.projectId, eq(alertRules.name, params.name));
}

export type AlertRuleValues = Pick<
  typeof alertRules.$inferInsert,
  "name" | "kind" | "agentId" | "windowMinutes" | "waitMinutes" | "threshold" | "cooldownMinutes" | "targets" | "enabled"
>;

export async function createAlertRule(db: Db, params: AlertRuleValues & { projectId: string }) {
  const [row] = await db.insert(alertRules).values(params).onConflictDoNothing({ target: [alertRules.projectId, alertRules.name] }).returning();
  return row;
}

/** Changes what a rule watches and where it tells; its state (firing or not) stays for the next evaluation to judge. */
export async function updateAlertRule(db: Db, params: { projectId: string; id: string; values: Partial<AlertRuleValues> }) {
  const [row] = await db
    .update(alertRules)
    .set({ ...params.values, updatedAt: sql`now()` })
    .where(and(eq(alertRules.id, params.id), eq(alertRules.projectId, params.projectId)))
    .returning();
  return row;
}

export async function deleteAlertRule(db: Db, params: { projectId: string; id: string }) {
  const [row] = await db.delete(alertRules).where(and(eq(alertRules.id, params.id), eq(alertRules.projectId, params.projectId))).returning();
  return row;
}

// ---- state transitions ----------------------------------------------------------------------

const cooledDown = (column: typeof alertRules.lastFiredAt | typeof alertRules.lastNotifiedAt, now: Date) =>
  or(isNull(column), lte(column, sql`${now.toISOString()}::timestamptz - ${alertRules.cooldownMinutes} * interval '1 minute'`))!;

/**
 * ok → firing, only if the rule is still ok and its last firing is a cooldown ago (a rule that
 * resolved does not fire again sooner). Returns the rule as it now is, or undefined when another
 * evaluator got there first or the cooldown holds it.
 */
export async function claimFiring(db: Db, params: { id: string; now: Date; value: number }) {
  const [row] = await db
    .update(alertRules)
    .set({ state: "firing", stateChangedAt: params.now, lastFiredAt: params.now, lastNotifiedAt: params.now, lastValue: params.value, lastEvaluatedAt: params.now })
    .where(and(eq(alertRules.id, params.id), eq(alertRules.enabled, true), eq(alertRules.state, "ok"), cooledDown(alertRules.lastFiredAt, params.now)))
    .returning();
  return row;
}

/** Still firing, and the last firing notice is a cooldown ago: time for a reminder. */
export async function claimReminder(db: Db, params: { id: string; now: Date; value: number }) {
  const [row] = await db
    .update(alertRules)
    .set({ lastNotifiedAt: params.now, lastValue: params.value, lastEvaluatedAt: params.now })
    .where(and(eq(alertRules.id, params.id), eq(alertRules.enabled, true), eq(alertRules.state, "firing"), isNotNull(alertRules.lastNotifiedAt), cooledDown(alertRules.lastNotifiedAt, params.now)))
    .returning();
  return row;
}

/** firing → ok, once. */
export async function claimResolve(db: Db, params: { id: string; now: Date; value: number }) {
  const [row] = await db
    .update(alertRules)
    .set({ state: "ok", stateChangedAt: params.now, lastValue: params.value, lastEvaluatedAt: params.now })
    .where(and(eq(alertRules.id, params.id), eq(alertRules.enabled, true), eq(alertRules.state, "firing")))
    .returning();
  return row;
}

/** What the last evaluation saw, when it changed nothing. */
export async function recordAlertValue(db: Db, params: { id: string; now: Date; value: number }) {
  await db.update(alertRules).set({ lastValue: params.value, lastEvaluatedAt: params.now }).where(eq(alertRules.id, params.id));
}

// ---- history --------------------------------------------------------------------------------

export async function insertAlertEvent(db: Db, params: Omit<typeof alertEvents.$inferInsert, "id" | "notified">) {
  const [row] = await db.insert(alertEvents).values(params).returning();
  return row;
}

export async function setAlertEventDeliveries(db: Db, params: { id: number; notified: AlertDelivery[] }) {
  await db.update(alertEvents).set({ notified: params.notified }).where(eq(alertEvents.id, params.id));
}

/** Newest first; the cursor is the last row's id. */
export async function listAlertEvents(db: Db, params: { ruleId: string; limit: number; beforeId?: number }) {
  return db
    .select()
    .from(alertEvents)
    .where(and(eq(alertEvents.ruleId, params.ruleId), params.beforeId !== undefined ? lt(alertEvents.id, params.beforeId) : undefined))
    .orderBy(desc(alertEvents.id))
    .limit(params.limit);
}

// ---- the metrics ----------------------------------------------------------------------------

/** What a rule measures: its project's runs (those of one agent when named) in the window. */
export interface MetricWindow {
  projectId: string;
  from: Date;
  to: Date;
  agentId?: string | null;
}

const runOfRule = (w: { projectId: string; agentId?: string | null }): SQL =>
  and(eq(runs.projectId, w.projectId), w.agentId ? eq(runs.agentId, w.agentId) : undefined)!;

// Predicates that match a partial index (drizzle/0013_alerts.sql) are written as literals: a bound
// parameter would keep a prepared statement's generic plan from using the index.

/** USD spent by the runs started in the window (what the Costs page sums for the same window). */
export async function costInWindow(db: Db, w: MetricWindow): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`coalesce(sum(${runs.costUsd}), 0)::float8` })
    .from(runs)
    .where(and(gte(runs.createdAt, w.from), lt(runs.createdAt, w.to), runOfRule(w)));
  return Number(row?.value ?? 0);
}

/** Runs that ended failed or timed out in the window. */
export async function failedRunsInWindow(db: Db, w: MetricWindow): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(*)::int` })
    .from(runs)
    .where(and(sql`${runs.outcome} in ('failed', 'timeout')`, gte(runs.finishedAt, w.from), lt(runs.finishedAt, w.to), runOfRule(w)));
  return Number(row?.value ?? 0);
}

/** Runs in which a hook blocked something (a tool call, a prompt...) in the window: the ledger's effective blocks. */
export async function blockedRunsInWindow(db: Db, w: MetricWindow): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(distinct ${hookInvocations.runId})::int` })
    .from(hookInvocations)
    .innerJoin(runs, eq(runs.id, hookInvocations.runId))
    .where(
      and(
        sql`${hookInvocations.verdict} = 'block' and not ${hookInvocations.ignored}`,
        gte(hookInvocations.createdAt, w.from),
        lt(hookInvocations.createdAt, w.to),
        runOfRule(w),
      ),
    );
  return Number(row?.value ?? 0);
}

/** Hooks of runs that errored or timed out in the window (hook tests, which have no run, do not count). */
export async function hookFailuresInWindow(db: Db, w: MetricWindow): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(*)::int` })
    .from(hookInvocations)
    .innerJoin(runs, eq(runs.id, hookInvocations.runId))
    .where(and(sql`(${hookInvocations.failed} or ${hookInvocations.timedOut})`, gte(hookInvocations.createdAt, w.from), lt(hookInvocations.createdAt, w.to), runOfRule(w)));
  return Number(row?.value ?? 0);
}

/** Decisions the CLI took alone reported in the window; `againstPolicy`: only gated calls it let through against a fail-closed policy. */
export async function offlineDecisionsInWindow(db: Db, w: MetricWindow & { againstPolicy?: boolean }): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(*)::int` })
    .from(offlineDecisions)
    .where(
      and(
        eq(offlineDecisions.projectId, w.projectId),
        gte(offlineDecisions.receivedAt, w.from),
        lt(offlineDecisions.receivedAt, w.to),
        w.agentId ? eq(offlineDecisions.agentId, w.agentId) : undefined,
        w.againstPolicy ? eq(offlineDecisions.againstPolicy, true) : undefined,
      ),
    );
  return Number(row?.value ?? 0);
}

/** Approvals still pending that were asked at or before `askedBefore`. */
export async function approvalsWaitingSince(db: Db, params: { projectId: string; askedBefore: Date; agentId?: string | null }): Promise<number> {
  const [row] = await db
    .select({ value: sql<number>`count(*)::int` })
    .from(approvals)
    .innerJoin(runs, eq(runs.id, approvals.runId))
    .where(and(eq(approvals.status, "pending"), eq(approvals.projectId, params.projectId), lte(approvals.requestedAt, params.askedBefore), runOfRule(params)));
  return Number(row?.value ?? 0);
}
