import { apiRoute } from "@/lib/api/route";
import { reorderHooksSchema } from "@/lib/hooks-config/hook-requests";
import { reorderHooksAudited } from "@/lib/hooks-config/hook-service";

export const POST = apiRoute({ role: "operator", body: reorderHooksSchema }, async ({ db, body, principal }) =>
  reorderHooksAudited(db, principal, body),
);
