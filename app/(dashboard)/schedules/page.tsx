import { CreateScheduleForm } from "@/lib/features/schedules/components/create-schedule-form";
import { ScheduleTable } from "@/lib/features/schedules/components/schedule-table";
import { PageHeader } from "@/components/ui/page-header";
import { getDatabase } from "@/db/client";
import { listAgents } from "@/db/queries/agents";
import { requirePagePrincipal } from "@/lib/platform/auth/current-principal";
import { roleAtLeast } from "@/lib/platform/auth/roles";
import { listSchedulesForApi } from "@/lib/features/schedules/schedule-service";
import { SettingsSection } from "@/lib/features/settings/components/settings-section";

export const metadata = { title: "Schedules" };

export default async function SchedulesPage() {
  const principal = await requirePagePrincipal();
  const canEditSchedules = roleAtLeast(principal.role, "operator");
  const { db } = await getDatabase();
  const [schedules, agents] = await Promise.all([listSchedulesForApi(db, principal.projectId), listAgents(db, { projectId: principal.projectId, limit: 500 })]);
  const agentNames = new Map(agents.map((a) => [a.id, a.name]));
  return (
    <>
      <PageHeader title="Schedules" description={`Runs of ${principal.projectSlug}'s agents started on a cron (UTC) or an interval.`} />
      <div className="max-w-5xl space-y-6">
        <SettingsSection
          title="Schedules"
          description={canEditSchedules ? "Runs started on a cron (UTC) or every N milliseconds." : "Runs started on a cron or an interval. Read only for viewers."}
          testId="schedules-section"
        >
          <ScheduleTable schedules={schedules} agentNames={agentNames} canEdit={canEditSchedules} />
          {canEditSchedules && (
            <div className="mt-4 border-t border-zinc-100 pt-4 dark:border-zinc-800">
              <CreateScheduleForm agents={agents.map((a) => a.name)} />
            </div>
          )}
        </SettingsSection>
      </div>
    </>
  );
}
