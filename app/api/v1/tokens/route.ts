import { listApiTokens } from "@/db/queries/api-tokens";
import { apiRoute } from "@/lib/platform/api/route";
import { issueProjectToken, tokenRequestSchema } from "@/lib/platform/auth/account-service";

/** The tokens of the request's project (its admins). */
export const GET = apiRoute({ role: "admin" }, async ({ db, principal }) => ({ items: await listApiTokens(db, { projectId: principal.projectId }), nextCursor: null }));

/** A token of the request's project, with a role at most the caller's there. */
export const POST = apiRoute({ role: "admin", body: tokenRequestSchema }, async ({ db, body, principal }) =>
  Response.json(await issueProjectToken(db, principal, body), { status: 201 }),
);
