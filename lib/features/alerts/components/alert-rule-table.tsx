import Link from "next/link";
import { DataTable } from "@/components/ui/data-table";
import { EmptyState } from "@/components/ui/empty-state";
import type { AlertRuleResource } from "@/lib/features/alerts/alert-service";
import { ALERT_KIND_INFO, targetLabel } from "@/lib/features/alerts/alert-rules";
import { formatAlertValue, formatMinutes } from "@/lib/features/alerts/alert-text";
import { AlertStateBadge } from "./alert-state-badge";

export const utc = (d: Date | undefined) => (d ? `${d.toISOString().replace("T", " ").slice(0, 16)} UTC` : "—");

/** `above $10 over 1 h`, `above 0 after 15 min`. */
export function conditionText(rule: Pick<AlertRuleResource, "kind" | "threshold" | "windowMinutes" | "waitMinutes">): string {
  const parameter = ALERT_KIND_INFO[rule.kind].parameter;
  const over = parameter === "window" ? ` over ${formatMinutes(rule.windowMinutes ?? 0)}` : parameter === "wait" ? ` waiting over ${formatMinutes(rule.waitMinutes ?? 0)}` : "";
  return `above ${formatAlertValue(rule.kind, rule.threshold)}${over}`;
}

export function AlertRuleTable({ rules, canEdit }: { rules: AlertRuleResource[]; canEdit: boolean }) {
  if (rules.length === 0) {
    return (
      <EmptyState title="No alert rules">
        {canEdit ? "Create one below to be told when cost, failures, blocks, hook errors or waiting approvals go past a threshold." : "An admin can create one."}
      </EmptyState>
    );
  }
  return (
    <DataTable testId="alert-rules" columns={[{ label: "Rule" }, { label: "Watches" }, { label: "Fires" }, { label: "State" }, { label: "Last value" }, { label: "Tells" }, { label: "Last evaluated" }]}>
      {rules.map((rule) => (
        <tr key={rule.id} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-testid="alert-rule-row" data-rule={rule.name}>
          <td className="px-3 py-2">
            <Link href={`/alerts/${rule.id}`} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
              {rule.name}
            </Link>
          </td>
          <td className="px-3 py-2">
            {ALERT_KIND_INFO[rule.kind].label}
            <span className="text-zinc-500"> · {rule.agent ?? "all agents"}</span>
          </td>
          <td className="px-3 py-2 text-zinc-600 dark:text-zinc-300">{conditionText(rule)}</td>
          <td className="px-3 py-2">
            <AlertStateBadge state={rule.enabled ? rule.state : "disabled"} />
          </td>
          <td className="px-3 py-2 tabular-nums">{rule.lastValue === undefined ? "—" : formatAlertValue(rule.kind, rule.lastValue)}</td>
          <td className="max-w-[16rem] px-3 py-2 text-xs text-zinc-500">{rule.targets.length ? rule.targets.map(targetLabel).join(", ") : "nobody (recorded only)"}</td>
          <td className="px-3 py-2 text-xs text-zinc-500">{utc(rule.lastEvaluatedAt)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
