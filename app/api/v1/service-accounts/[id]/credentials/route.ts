import { z } from "zod";
import { uuidSchema } from "@/lib/core/safe-input";
import { apiRoute } from "@/lib/platform/api/route";
import { issueServiceCredential, serviceCredentialRequestSchema } from "@/lib/platform/auth/service-accounts";

/**
 * A token of the service account: `{name, kind: "bridge"}` for a coding agent in CI (its hook events
 * only), `{name, kind: "api", role: "viewer"|"operator"}` for a script. `{token}` is shown once.
 */
export const POST = apiRoute({ role: "admin", params: z.object({ id: uuidSchema }), body: serviceCredentialRequestSchema }, async ({ db, params, body, principal }) =>
  Response.json(await issueServiceCredential(db, principal, params, body), { status: 201 }),
);
