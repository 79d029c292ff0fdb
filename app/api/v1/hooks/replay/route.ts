import { apiRoute } from "@/lib/platform/api/route";
import { hookReplaySchema, replayHook } from "@/lib/features/hooks/hook-replay";

export const POST = apiRoute({ role: "operator", body: hookReplaySchema }, async ({ db, principal, body }) => replayHook(db, principal, body));
