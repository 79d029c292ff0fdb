/** The runs export: which columns a CSV row has, and every matching run read page by page. */
import type { Db } from "@/db/client";
import { listRuns, runToApi, type RunApi, type RunFilters } from "@/db/queries/runs";
import { keysetPages, type ExportColumn } from "@/lib/platform/export/export-response";

const PAGE_SIZE = 500;

type ListedRun = Awaited<ReturnType<typeof listRuns>>[number];

export const RUN_EXPORT_COLUMNS: readonly ExportColumn<RunApi>[] = [
  { header: "id", value: (r) => r.id },
  { header: "createdAt", value: (r) => r.createdAt },
  { header: "agentName", value: (r) => r.agentName },
  { header: "agentId", value: (r) => r.agentId },
  { header: "source", value: (r) => r.source },
  { header: "status", value: (r) => r.status },
  { header: "outcome", value: (r) => r.outcome },
  { header: "reason", value: (r) => r.reason },
  { header: "prompt", value: (r) => r.prompt },
  { header: "response", value: (r) => r.response },
  { header: "toolsUsed", value: (r) => r.toolsUsed.join(" ") },
  { header: "blocked", value: (r) => r.blocked },
  { header: "inputTokens", value: (r) => r.inputTokens },
  { header: "outputTokens", value: (r) => r.outputTokens },
  { header: "cachedTokens", value: (r) => r.cachedTokens },
  { header: "costUsd", value: (r) => r.costUsd },
  { header: "scheduleId", value: (r) => r.scheduleId },
  { header: "startedAt", value: (r) => r.startedAt },
  { header: "finishedAt", value: (r) => r.finishedAt },
  // Who acted in an outside session, and the machine as its CLI reported it (unverified).
  { header: "actor", value: (r) => r.actor?.label },
  { header: "actorUserId", value: (r) => r.actor?.userId },
  { header: "actorHostReported", value: (r) => r.actor?.machine?.host },
  { header: "actorOsUserReported", value: (r) => r.actor?.machine?.osUser },
];

/** The project's runs the filters select. */
export async function* runExportPages(db: Db, filters: RunFilters & { projectId: string }): AsyncGenerator<RunApi[]> {
  const pages = keysetPages<ListedRun>(
    (after) =>
      listRuns(db, { ...filters, limit: PAGE_SIZE, before: after && { createdAt: after.createdAt.toISOString(), id: after.id } }),
    PAGE_SIZE,
  );
  for await (const rows of pages) yield rows.map(runToApi);
}
