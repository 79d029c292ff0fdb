/**
 * What an alert rule is, as the API and the dashboard's form take it (one schema for both): a
 * name, a kind with its parameters, a threshold, a cooldown and where to tell. Targets are the
 * hook actions of the same names (hook-model.md: `slack`, `discord`, `webhook`, with the same
 * secret rules) plus `email`.
 */
import { z } from "zod";
import type { AlertKind } from "@/db/schema";
import { egressIssues } from "@/lib/core/hooks/secret-placement";
import { discordAction, slackAction, webhookAction } from "@/lib/core/hooks/spec";

/** Kept here rather than in db/schema.ts so the browser's form can list them without the ORM. */
export const ALERT_KINDS = ["cost", "runs_failed", "runs_blocked", "approvals_waiting", "hook_failures", "offline_decisions", "offline_against_policy", "unguarded_sessions", "settings_drift"] as const satisfies readonly AlertKind[];

export const MAX_WINDOW_MINUTES = 30 * 24 * 60;
export const MAX_COOLDOWN_MINUTES = 7 * 24 * 60;
export const MAX_TARGETS = 10;

/** What each kind measures, for people (the form, the docs) and for the notice's line. */
/** The one parameter a kind takes: a window it sums over, a wait (approvals), or none (a state now). */
export type AlertParameter = "window" | "wait" | "none";

export const ALERT_KIND_INFO: Record<AlertKind, { label: string; unit: "usd" | "count"; parameter: AlertParameter; describe: string }> = {
  cost: { label: "Cost", unit: "usd", parameter: "window", describe: "USD spent by the runs started in the window (what the Costs page shows)" },
  runs_failed: { label: "Failed runs", unit: "count", parameter: "window", describe: "runs that ended failed or timed out in the window" },
  runs_blocked: { label: "Blocked runs", unit: "count", parameter: "window", describe: "runs in which a hook blocked something in the window" },
  approvals_waiting: { label: "Approvals waiting", unit: "count", parameter: "wait", describe: "approvals still pending after the wait" },
  hook_failures: { label: "Hook failures", unit: "count", parameter: "window", describe: "hooks of runs that errored or timed out in the window" },
  offline_decisions: {
    label: "Decided offline",
    unit: "count",
    parameter: "window",
    describe: "tool calls and prompts coding agents' hooks let through or refused alone, Hookplane unreachable, reported in the window",
  },
  offline_against_policy: {
    label: "Let through offline against policy",
    unit: "count",
    parameter: "window",
    describe: "gated tool calls and prompts coding agents' hooks let through alone, Hookplane unreachable, while their agent's fail mode is closed, reported in the window",
  },
  unguarded_sessions: {
    label: "Sessions without hooks",
    unit: "count",
    parameter: "window",
    describe: "coding-agent sessions seen through their own telemetry in the window that ran without Hookplane's guards (no PreToolUse hook, safe mode, or tool calls that never reached Hookplane)",
  },
  settings_drift: {
    label: "Drifted installs",
    unit: "count",
    parameter: "none",
    describe: "machines whose installed hook settings are not the agent's current export (run hookplane install again)",
  },
};

const emailTarget = z.object({
  type: z.literal("email"),
  to: z.array(z.email("not an email address").max(254)).min(1, "give at least one address").max(20),
});

export const alertTargetSchema = z
  .discriminatedUnion("type", [slackAction, discordAction, webhookAction, emailTarget])
  .superRefine((target, ctx) => {
    if (target.type !== "webhook") return;
    // The same rules as a webhook hook: secrets only in headers or the URL's userinfo, http(s) only.
    for (const issue of egressIssues(target)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    if (target.url.includes("{{")) ctx.addIssue({ code: "custom", path: ["url"], message: "an alert's webhook URL has no {{variables}} to fill in" });
  });
export type AlertTargetInput = z.infer<typeof alertTargetSchema>;

const minutes = (max: number, what: string) =>
  z
    .number({ error: `${what} is a whole number of minutes` })
    .int(`${what} is a whole number of minutes`)
    .min(1, `${what} is at least 1 minute`)
    .max(max, `${what} is at most ${max} minutes`);

const ruleFields = {
  name: z.string().trim().min(1, "give the rule a name").max(200),
  kind: z.enum(ALERT_KINDS, { error: `one of ${ALERT_KINDS.join(", ")}` }),
  /** An agent's name or id; omitted: every agent. */
  agent: z.string().trim().min(1).max(200).optional(),
  windowMinutes: minutes(MAX_WINDOW_MINUTES, "the window").optional(),
  waitMinutes: minutes(MAX_WINDOW_MINUTES, "the wait").optional(),
  threshold: z.number({ error: "the threshold is a number" }).min(0, "the threshold is 0 or more").max(1e9),
  cooldownMinutes: minutes(MAX_COOLDOWN_MINUTES, "the cooldown"),
  targets: z.array(alertTargetSchema).max(MAX_TARGETS, `at most ${MAX_TARGETS} targets`),
  enabled: z.boolean(),
};

/** The parameters each kind needs, at their own paths. */
function kindParameters(rule: { kind: AlertKind; windowMinutes?: number; waitMinutes?: number }, ctx: z.RefinementCtx) {
  const parameter = ALERT_KIND_INFO[rule.kind].parameter;
  if (parameter === "window" && rule.windowMinutes === undefined) ctx.addIssue({ code: "custom", path: ["windowMinutes"], message: `a ${rule.kind} rule needs a window (minutes)` });
  if (parameter !== "window" && rule.windowMinutes !== undefined) ctx.addIssue({ code: "custom", path: ["windowMinutes"], message: `a ${rule.kind} rule has no window` });
  if (parameter === "wait" && rule.waitMinutes === undefined) ctx.addIssue({ code: "custom", path: ["waitMinutes"], message: "an approvals_waiting rule needs a wait (minutes)" });
  if (parameter !== "wait" && rule.waitMinutes !== undefined) ctx.addIssue({ code: "custom", path: ["waitMinutes"], message: "only an approvals_waiting rule has a wait" });
}

export const alertRuleSchema = z
  .object({ ...ruleFields, cooldownMinutes: ruleFields.cooldownMinutes.default(60), targets: ruleFields.targets.default([]), enabled: ruleFields.enabled.default(true) })
  // Also when other fields have problems, so the form shows every one at once.
  .superRefine(kindParameters, { when: (payload) => ALERT_KINDS.includes((payload.value as { kind?: AlertKind } | undefined)?.kind as AlertKind) });
export type AlertRuleInput = z.infer<typeof alertRuleSchema>;

/** PATCH: any field; `agent: null` (or `windowMinutes: null`...) clears it. The merged rule is checked again as a whole. */
export const alertRulePatchSchema = z.object({
  name: ruleFields.name.optional(),
  kind: ruleFields.kind.optional(),
  agent: ruleFields.agent.unwrap().nullable().optional(),
  windowMinutes: ruleFields.windowMinutes.unwrap().nullable().optional(),
  waitMinutes: ruleFields.waitMinutes.unwrap().nullable().optional(),
  threshold: ruleFields.threshold.optional(),
  cooldownMinutes: ruleFields.cooldownMinutes.optional(),
  targets: ruleFields.targets.optional(),
  enabled: ruleFields.enabled.optional(),
});
export type AlertRulePatch = z.infer<typeof alertRulePatchSchema>;

/** How a target is named in the history and in decision-free notices: `slack:#ops`, `webhook:hooks.example.com`. */
export function targetLabel(target: AlertTargetInput): string {
  switch (target.type) {
    case "slack":
    case "discord":
      return `${target.type}:${target.channel}`;
    case "webhook": {
      try {
        return `webhook:${new URL(target.url.replace(/\$\{secret:[A-Za-z0-9_]+\}/g, "x")).hostname}`;
      } catch {
        return "webhook";
      }
    }
    case "email":
      return `email:${target.to.join(",")}`;
  }
}
