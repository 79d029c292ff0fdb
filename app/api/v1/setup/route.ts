import { apiRoute } from "@/lib/platform/api/route";
import { credentialsSchema, setupFirstAdmin } from "@/lib/platform/auth/account-service";

export const POST = apiRoute({ role: null, body: credentialsSchema }, async ({ db, body }) =>
  Response.json(await setupFirstAdmin(db, body), { status: 201 }),
);
