import { apiRoute } from "@/lib/api/route";
import { hookTrialSchema, tryHooks } from "@/lib/hooks-config/hook-trial";

export const POST = apiRoute({ role: "operator", body: hookTrialSchema }, async ({ db, principal, body }) => tryHooks(db, principal, body));
