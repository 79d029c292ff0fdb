import { apiRoute } from "@/lib/platform/api/route";
import { createServiceAccountAudited, listProjectServiceAccounts, serviceAccountRequestSchema } from "@/lib/platform/auth/service-accounts";

/** The project's service accounts (its admins), each with its active tokens' count and last use. */
export const GET = apiRoute({ role: "admin" }, async ({ db, principal }) => ({ items: await listProjectServiceAccounts(db, principal), nextCursor: null }));

/** A new service account of the request's project: `{name, description?}`; 409 when the name is taken. */
export const POST = apiRoute({ role: "admin", body: serviceAccountRequestSchema }, async ({ db, body, principal }) =>
  Response.json(await createServiceAccountAudited(db, principal, body), { status: 201 }),
);
