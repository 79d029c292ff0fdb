import { clsx } from "clsx";
import { formatUsd } from "@/lib/core/hooks/event-summary";
import { EmptyState } from "@/components/ui/empty-state";
import type { CostReport } from "../schema";

function barColor(ratio: number) {
  if (ratio >= 1) return "bg-red-500";
  if (ratio >= 0.75) return "bg-amber-500";
  return "bg-emerald-500";
}

/** Today's spend (since 00:00 UTC) against each agent's daily budget; new runs stop at 100 %. */
export function BudgetList({ budgets }: { budgets: CostReport["budgets"] }) {
  if (budgets.length === 0) return <EmptyState title="No agents yet">Budgets are set on each agent.</EmptyState>;
  return (
    <ul className="divide-y divide-zinc-100 dark:divide-zinc-800" data-testid="budget-list">
      {budgets.map((b) => {
        const ratio = b.dailyBudgetUsd ? b.spentTodayUsd / b.dailyBudgetUsd : 0;
        const percent = Math.round(ratio * 100);
        return (
          <li key={b.agentId} className="py-2.5" data-testid="budget-row" data-agent={b.agentName}>
            <div className="flex flex-wrap items-baseline justify-between gap-x-4 text-sm">
              <span className="font-medium">{b.agentName}</span>
              <span className="text-xs text-zinc-500">
                per run: {b.budgetUsd !== null ? formatUsd(b.budgetUsd) : "no limit"}
              </span>
            </div>
            {b.dailyBudgetUsd !== null ? (
              <>
                <div
                  className="mt-1.5 h-2 overflow-hidden rounded-full bg-zinc-200 dark:bg-zinc-800"
                  role="progressbar"
                  aria-label={`${b.agentName} daily budget used`}
                  aria-valuemin={0}
                  aria-valuemax={100}
                  aria-valuenow={Math.min(percent, 100)}
                >
                  <div className={clsx("h-full rounded-full", barColor(ratio))} style={{ width: `${Math.min(100, ratio * 100)}%` }} />
                </div>
                <div className="mt-1 text-xs text-zinc-500" data-testid="budget-spent">
                  {formatUsd(b.spentTodayUsd)} of {formatUsd(b.dailyBudgetUsd)} today ({percent} %){ratio >= 1 && " — new runs are refused until 00:00 UTC"}
                </div>
              </>
            ) : (
              <div className="mt-1 text-xs text-zinc-500" data-testid="budget-spent">
                {formatUsd(b.spentTodayUsd)} today · no daily budget
              </div>
            )}
            {b.dailyBudgetPerPersonUsd !== null && (
              <div className="mt-1 text-xs text-zinc-500" data-testid="budget-per-person">
                per person: {formatUsd(b.dailyBudgetPerPersonUsd)} a day
                {b.topPerson && (
                  <>
                    {" "}
                    · most today: {b.topPerson.label} {formatUsd(b.topPerson.spentTodayUsd)}
                    {b.topPerson.spentTodayUsd >= b.dailyBudgetPerPersonUsd && <span className="text-red-600 dark:text-red-400"> (refused until 00:00 UTC)</span>}
                  </>
                )}
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}
