import { EmptyState } from "@/components/ui/empty-state";
import type { listSchedulesForApi } from "@/lib/features/schedules/schedule-service";
import { DeleteScheduleButton } from "./delete-schedule-button";
import { DataTable } from "@/components/ui/data-table";

type Schedule = Awaited<ReturnType<typeof listSchedulesForApi>>[number];

const when = (d: Date | undefined) => (d ? d.toISOString().replace("T", " ").slice(0, 16) : "—");

function timingOf(s: Schedule) {
  if (s.cron) return <code className="font-mono text-xs">{s.cron}</code>;
  return <span className="text-xs">every {s.intervalMs?.toLocaleString("en-US")} ms</span>;
}

export function ScheduleTable({ schedules, agentNames, canEdit }: { schedules: Schedule[]; agentNames: Map<string, string>; canEdit: boolean }) {
  if (schedules.length === 0) {
    return <EmptyState title="No schedules">{canEdit ? "Create one below to run an agent on a cron or an interval." : "An operator can create one."}</EmptyState>;
  }
  return (
    <DataTable variant="plain" testId="schedules-table" columns={[{ label: "Agent" }, { label: "Timing" }, { label: "Prompt" }, { label: "Next run (UTC)" }, { label: "Last run (UTC)" }, { label: "Last response" }, ...(canEdit ? [{ label: "Actions", hidden: true }] : [])]}>
          {schedules.map((s) => {
            const agent = agentNames.get(s.agentId) ?? s.agentId;
            return (
              <tr key={s.id} className="border-t border-zinc-100 align-top dark:border-zinc-800" data-testid="schedule-row">
                <td className="py-1.5 pr-3">{agent}</td>
                <td className="py-1.5 pr-3">{timingOf(s)}</td>
                <td className="max-w-[14rem] truncate py-1.5 pr-3" title={s.prompt}>
                  {s.prompt}
                </td>
                <td className="py-1.5 pr-3 text-zinc-500">{s.enabled ? when(s.nextRunAt) : "disabled"}</td>
                <td className="py-1.5 pr-3 text-zinc-500">{when(s.lastRunAt)}</td>
                <td className="max-w-[16rem] truncate py-1.5 pr-3 text-zinc-500" title={s.lastResponse}>
                  {s.lastResponse ?? "—"}
                </td>
                {canEdit && (
                  <td className="py-1.5 text-right">
                    <DeleteScheduleButton id={s.id} label={`${agent} ${s.cron ?? `every ${s.intervalMs} ms`}`} />
                  </td>
                )}
              </tr>
            );
          })}
        </DataTable>
  );
}
