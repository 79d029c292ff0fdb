import { apiRoute } from "@/lib/platform/api/route";
import { importConfigAudited } from "@/lib/features/config-io/config-import";
import { importRequestSchema } from "@/lib/features/config-io/import-request";

/** 201 when something was written, 200 for a dry run (api.md, Config). */
export const POST = apiRoute({ role: "operator", body: importRequestSchema }, async ({ db, body, principal }) => {
  const summary = await importConfigAudited(db, principal, body);
  return Response.json(summary, { status: body.dry ? 200 : 201 });
});
