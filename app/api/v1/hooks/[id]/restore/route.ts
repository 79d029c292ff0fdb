import { apiRoute } from "@/lib/platform/api/route";
import { restoreHookSchema } from "@/lib/features/hooks/schema";
import { restoreHookVersionAudited } from "@/lib/features/hooks/hook-service";

export const POST = apiRoute({ role: "operator", body: restoreHookSchema }, async ({ db, params, body, principal }) =>
  restoreHookVersionAudited(db, principal, params.id, body.version),
);
