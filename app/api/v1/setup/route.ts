import { apiRoute } from "@/lib/api/route";
import { credentialsSchema, setupFirstAdmin } from "@/lib/auth/account-service";

export const POST = apiRoute({ role: null, body: credentialsSchema }, async ({ db, body }) =>
  Response.json(await setupFirstAdmin(db, body), { status: 201 }),
);
