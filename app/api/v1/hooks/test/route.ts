import { apiRoute } from "@/lib/platform/api/route";
import { tryHooks } from "@/lib/features/hooks/hook-trial";
import { hookTrialSchema } from "@/lib/features/hooks/schema";

export const POST = apiRoute({ role: "operator", body: hookTrialSchema }, async ({ db, principal, body }) => tryHooks(db, principal, body));
