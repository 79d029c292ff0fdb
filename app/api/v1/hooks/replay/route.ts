import { apiRoute } from "@/lib/platform/api/route";
import { replayHook } from "@/lib/features/hooks/hook-replay";
import { hookReplaySchema } from "@/lib/features/hooks/schema";

export const POST = apiRoute({ role: "operator", body: hookReplaySchema }, async ({ db, principal, body }) => replayHook(db, principal, body));
