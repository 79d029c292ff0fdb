import { apiRoute } from "@/lib/api/route";
import { hookReplaySchema, replayHook } from "@/lib/hooks-config/hook-replay";

export const POST = apiRoute({ role: "operator", body: hookReplaySchema }, async ({ db, principal, body }) => replayHook(db, principal, body));
