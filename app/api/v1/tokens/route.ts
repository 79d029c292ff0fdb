import { listApiTokens } from "@/db/queries/api-tokens";
import { apiRoute } from "@/lib/platform/api/route";
import { issueApiToken, tokenRequestSchema } from "@/lib/platform/auth/account-service";

export const GET = apiRoute({ role: "admin" }, async ({ db }) => ({ items: await listApiTokens(db), nextCursor: null }));

export const POST = apiRoute({ role: "admin", body: tokenRequestSchema }, async ({ db, body, principal }) =>
  Response.json(await issueApiToken(db, { ...body, userId: principal.userId, actor: principal.label }), { status: 201 }),
);
