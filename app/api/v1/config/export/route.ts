import { apiRoute } from "@/lib/platform/api/route";
import { exportStoredConfig, warningsHeader } from "@/lib/features/config-io/config-export";
import { exportQuerySchema } from "@/lib/features/config-io/import-request";

/** The request's project's agents, hooks and schedules as one dialect's file. */
export const GET = apiRoute({ role: "viewer", query: exportQuerySchema }, async ({ db, query, principal }) => {
  const file = await exportStoredConfig(db, principal.projectId, query);
  return new Response(file.content, {
    headers: {
      "content-type": `${file.contentType}; charset=utf-8`,
      "content-disposition": `attachment; filename="${file.filename}"`,
      "x-hookplane-warnings": warningsHeader(file.warnings),
      "x-hookplane-warning-count": String(file.warnings.length),
      "cache-control": "no-store",
    },
  });
});
