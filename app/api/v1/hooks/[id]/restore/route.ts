import { apiRoute } from "@/lib/api/route";
import { restoreHookSchema } from "@/lib/hooks-config/hook-requests";
import { restoreHookVersionAudited } from "@/lib/hooks-config/hook-service";

export const POST = apiRoute({ role: "operator", body: restoreHookSchema }, async ({ db, params, body, principal }) =>
  restoreHookVersionAudited(db, principal, params.id, body.version),
);
