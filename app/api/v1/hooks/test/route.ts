import { apiRoute } from "@/lib/platform/api/route";
import { hookTrialSchema, tryHooks } from "@/lib/features/hooks/hook-trial";

export const POST = apiRoute({ role: "operator", body: hookTrialSchema }, async ({ db, principal, body }) => tryHooks(db, principal, body));
