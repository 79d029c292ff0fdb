/**
 * What an alert notice says, in one line read between two other things in a chat:
 * "Alert ops-spend: cost of agent ops-bot $12.40 over the last 1 h is above $10". The same line is
 * the Slack text, the Discord content, the webhook's `notice.summary`, the email's subject and the
 * history row's message.
 */
import type { AlertKind } from "@/db/schema";
import { ALERT_KIND_INFO } from "./alert-rules";

export interface AlertSubject {
  name: string;
  kind: AlertKind;
  agentName: string | null;
  windowMinutes: number | null;
  waitMinutes: number | null;
}

export type AlertTransition = "firing" | "reminder" | "resolved";

/** `1 h`, `90 min`, `2 d`: minutes as people say them. */
export function formatMinutes(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440} d`;
  if (minutes % 60 === 0) return `${minutes / 60} h`;
  return `${minutes} min`;
}

/** `$12.40`, `$10`, `$0.0042`. */
export function formatUsd(value: number): string {
  if (Number.isInteger(value)) return `$${value}`;
  if (Math.abs(value) >= 0.01) return `$${value.toFixed(2)}`;
  return `$${Number(value.toPrecision(2))}`;
}

export function formatAlertValue(kind: AlertKind, value: number): string {
  return ALERT_KIND_INFO[kind].unit === "usd" ? formatUsd(value) : String(Math.round(value * 100) / 100);
}

/** `cost of agent ops-bot`, `total cost`, `failed runs`, `approvals of agent ops-bot waiting longer than 15 min`. */
export function alertMetricText(rule: AlertSubject): string {
  const ofAgent = rule.agentName ? ` of agent ${rule.agentName}` : "";
  switch (rule.kind) {
    case "cost":
      return rule.agentName ? `cost of agent ${rule.agentName}` : "total cost";
    case "runs_failed":
      return `failed runs${ofAgent}`;
    case "runs_blocked":
      return `blocked runs${ofAgent}`;
    case "hook_failures":
      return `hook failures${ofAgent}`;
    case "offline_decisions":
      return `decisions taken offline${ofAgent}`;
    case "offline_against_policy":
      return `calls let through offline against a fail-closed policy${ofAgent}`;
    case "unguarded_sessions":
      return `coding-agent sessions without Hookplane's hooks${ofAgent}`;
    case "settings_drift":
      return `machines with drifted hook settings${ofAgent}`;
    case "approvals_waiting":
      return `approvals${ofAgent} waiting longer than ${formatMinutes(rule.waitMinutes ?? 0)}`;
  }
}

const LEAD: Record<AlertTransition, string> = { firing: "Alert", reminder: "Still firing", resolved: "Resolved" };

export function alertLine(rule: AlertSubject, transition: AlertTransition, value: number, threshold: number): string {
  const window = ALERT_KIND_INFO[rule.kind].parameter === "window" && rule.windowMinutes ? ` over the last ${formatMinutes(rule.windowMinutes)}` : "";
  const comparison = transition === "resolved" ? "is back at or below" : "is above";
  return `${LEAD[transition]} ${rule.name}: ${alertMetricText(rule)} ${formatAlertValue(rule.kind, value)}${window} ${comparison} ${formatAlertValue(rule.kind, threshold)}`;
}

/** The rule in the dashboard. */
export function alertLink(publicUrl: string, ruleId: string): string {
  return `${publicUrl}/alerts/${encodeURIComponent(ruleId)}`;
}
