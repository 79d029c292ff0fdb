import { apiRoute } from "@/lib/platform/api/route";
import { exportFormatSchema } from "@/lib/platform/export/export-format";
import { exportResponse } from "@/lib/platform/export/export-response";
import { RUN_EXPORT_COLUMNS, runExportPages } from "@/lib/features/runs/run-export";
import { resolveRunFilters, runFiltersSchema } from "@/lib/features/runs/run-filters";

const runExportQuerySchema = runFiltersSchema.extend(exportFormatSchema.shape);

export const GET = apiRoute({ role: "viewer", query: runExportQuerySchema }, async ({ db, query, principal }) => {
  const { format, ...filters } = query;
  const pages = runExportPages(db, { ...(await resolveRunFilters(db, principal.projectId, filters)), projectId: principal.projectId });
  return exportResponse({ format, name: "hookplane-runs", columns: RUN_EXPORT_COLUMNS, pages });
});
