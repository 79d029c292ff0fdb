import { apiRoute } from "@/lib/platform/api/route";
import { exportResponse } from "@/lib/platform/export/export-response";
import { RUN_EXPORT_COLUMNS, runExportPages } from "@/lib/features/runs/run-export";
import { resolveRunFilters } from "@/lib/features/runs/run-filters";
import { runExportQuerySchema } from "@/lib/features/runs/schema";

export const GET = apiRoute({ role: "viewer", query: runExportQuerySchema }, async ({ db, query, principal }) => {
  const { format, ...filters } = query;
  const pages = runExportPages(db, { ...(await resolveRunFilters(db, principal.projectId, filters)), projectId: principal.projectId });
  return exportResponse({ format, name: "hookplane-runs", columns: RUN_EXPORT_COLUMNS, pages });
});
