import { apiRoute } from "@/lib/api/route";
import { exportFormatSchema } from "@/lib/export/export-format";
import { exportResponse } from "@/lib/export/export-response";
import { RUN_EXPORT_COLUMNS, runExportPages } from "@/lib/runs/run-export";
import { resolveRunFilters, runFiltersSchema } from "@/lib/runs/run-filters";

const runExportQuerySchema = runFiltersSchema.extend(exportFormatSchema.shape);

export const GET = apiRoute({ role: "viewer", query: runExportQuerySchema }, async ({ db, query }) => {
  const { format, ...filters } = query;
  const pages = runExportPages(db, await resolveRunFilters(db, filters));
  return exportResponse({ format, name: "hookplane-runs", columns: RUN_EXPORT_COLUMNS, pages });
});
