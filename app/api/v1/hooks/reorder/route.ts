import { apiRoute } from "@/lib/platform/api/route";
import { reorderHooksSchema } from "@/lib/features/hooks/schema";
import { reorderHooksAudited } from "@/lib/features/hooks/hook-service";

export const POST = apiRoute({ role: "operator", body: reorderHooksSchema }, async ({ db, body, principal }) =>
  reorderHooksAudited(db, principal, body),
);
