import { apiRoute } from "@/lib/platform/api/route";
import { revokeBySecret, revokeBySecretSchema } from "@/lib/platform/auth/bridge-credentials";

/** `hookplane logout`: the holder of a token's secret ends it (no other credential needed). */
export const POST = apiRoute({ role: null, body: revokeBySecretSchema }, async ({ db, body }) => ({ revoked: await revokeBySecret(db, body) }));
