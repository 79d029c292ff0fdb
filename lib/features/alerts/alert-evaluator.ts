/**
 * One evaluation of every enabled alert rule: measure, compare with the threshold, move the state
 * with a conditional UPDATE, record the transition and tell the targets.
 *
 * When a rule notifies (documented in docs/how-it-works.md, Alerts):
 * - ok → firing when the value is above the threshold: a firing notice, unless the rule last fired
 *   less than a cooldown ago (a rule that resolved and rises again within its cooldown waits, and
 *   fires once the cooldown has passed if the value is still above);
 * - still firing a cooldown after its last notice: a reminder (a history row marked reminder);
 * - firing → ok when the value is at or below the threshold: one resolved notice.
 * Each transition is claimed in the same UPDATE that checks it, and its history row is written in
 * that transaction, so two evaluators at once (two processes, or a slow one overlapping the next
 * period) produce one row and one set of notices. Notices go out after the commit: a process that
 * dies in between leaves the row with no deliveries (`notified` null) rather than notifying twice.
 */
import type { Db } from "@/db/client";
import {
  approvalsWaitingSince,
  blockedRunsInWindow,
  claimFiring,
  claimReminder,
  claimResolve,
  costInWindow,
  failedRunsInWindow,
  hookFailuresInWindow,
  offlineDecisionsInWindow,
  insertAlertEvent,
  listEnabledAlertRulesInAllProjects,
  recordAlertValue,
  setAlertEventDeliveries,
  type AlertRuleWithAgent,
} from "@/db/queries/alerts";
import { countUnguardedSessions } from "@/db/queries/coding-agent-sightings";
import type { AlertTarget } from "@/db/schema";
import { countDriftedInstalls } from "@/lib/features/config-io/agent-installs";
import { logger } from "@/lib/platform/logger";
import { secretMasker } from "@/lib/features/approvals/approval-notices";
import { sendAlertNotices, type AlertNoticeDeps } from "./alert-notices";
import { alertLine, alertLink, type AlertTransition } from "./alert-text";

/** The rule's metric at `now`, over its own project's runs, approvals and ledger only. */
export async function measureAlert(
  db: Db,
  rule: Pick<AlertRuleWithAgent, "projectId" | "kind" | "agentId" | "windowMinutes" | "waitMinutes">,
  now: Date,
): Promise<number> {
  if (rule.kind === "settings_drift") return countDriftedInstalls(db, { projectId: rule.projectId, agentId: rule.agentId });
  if (rule.kind === "approvals_waiting") {
    return approvalsWaitingSince(db, { projectId: rule.projectId, askedBefore: new Date(now.getTime() - (rule.waitMinutes ?? 0) * 60_000), agentId: rule.agentId });
  }
  const window = { projectId: rule.projectId, from: new Date(now.getTime() - (rule.windowMinutes ?? 60) * 60_000), to: now, agentId: rule.agentId };
  switch (rule.kind) {
    case "cost":
      return costInWindow(db, window);
    case "runs_failed":
      return failedRunsInWindow(db, window);
    case "runs_blocked":
      return blockedRunsInWindow(db, window);
    case "hook_failures":
      return hookFailuresInWindow(db, window);
    case "offline_decisions":
      return offlineDecisionsInWindow(db, window);
    case "offline_against_policy":
      return offlineDecisionsInWindow(db, { ...window, againstPolicy: true });
    case "unguarded_sessions":
      return countUnguardedSessions(db, window);
  }
}

export interface EvaluationResult {
  rules: number;
  transitions: { ruleId: string; transition: AlertTransition; eventId: number }[];
}

/** Claims a transition and writes its history row in one transaction; undefined when not claimed. */
async function claimTransition(db: Db, rule: AlertRuleWithAgent, transition: AlertTransition, now: Date, value: number, mask: (text: string) => string) {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const claim = transition === "firing" ? claimFiring : transition === "reminder" ? claimReminder : claimResolve;
    const claimed = await claim(tx, { id: rule.id, now, value });
    if (!claimed) return undefined;
    // The rule as the claim saw it: an edit between the read and the claim is what the line says.
    const current = { ...rule, ...claimed };
    // A name that happens to hold a secret value is masked in the history as in the notices.
    const line = mask(alertLine(current, transition, value, current.threshold));
    const event = await insertAlertEvent(tx, {
      ruleId: rule.id,
      state: transition === "resolved" ? "resolved" : "firing",
      reminder: transition === "reminder",
      value,
      threshold: current.threshold,
      message: line,
      at: now,
    });
    return { event, rule: current, line };
  });
}

async function evaluateRule(db: Db, rule: AlertRuleWithAgent, now: Date, deps: AlertNoticeDeps, result: EvaluationResult) {
  const value = await measureAlert(db, rule, now);
  const above = value > rule.threshold;
  const transition: AlertTransition | undefined = above ? (rule.state === "ok" ? "firing" : "reminder") : rule.state === "firing" ? "resolved" : undefined;
  // No masker, no notice: a rule whose secrets cannot be read waits for the next period unclaimed.
  const mask = transition ? await secretMasker(db) : undefined;
  const claimed = transition ? await claimTransition(db, rule, transition, now, value, mask!) : undefined;
  if (!claimed || !transition) {
    await recordAlertValue(db, { id: rule.id, now, value });
    return;
  }
  result.transitions.push({ ruleId: rule.id, transition, eventId: claimed.event.id });
  const notified = await sendAlertNotices(db, claimed.rule.projectId, claimed.rule.targets as AlertTarget[], {
    ruleId: rule.id,
    ruleName: claimed.rule.name,
    kind: claimed.rule.kind,
    agentName: rule.agentName,
    transition,
    value,
    threshold: claimed.rule.threshold,
    line: claimed.line,
    url: alertLink(deps.reach.publicUrl, rule.id),
    at: now,
  }, deps, mask);
  await setAlertEventDeliveries(db, { id: claimed.event.id, notified });
  const failed = notified.filter((n) => !n.ok);
  if (failed.length) logger.warn({ ruleId: rule.id, transition, failed }, "some alert notices were not delivered");
}

/**
 * Evaluates every enabled rule at `now`. A rule whose measurement or notices fail is logged and
 * the others go on.
 */
export async function evaluateAlerts(db: Db, deps: AlertNoticeDeps, now = new Date()): Promise<EvaluationResult> {
  const rules = await listEnabledAlertRulesInAllProjects(db);
  const result: EvaluationResult = { rules: rules.length, transitions: [] };
  for (const rule of rules) {
    try {
      await evaluateRule(db, rule, now, deps, result);
    } catch (error) {
      logger.warn({ err: error, ruleId: rule.id }, "an alert rule could not be evaluated");
    }
  }
  return result;
}
