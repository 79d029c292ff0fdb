import { listUsers } from "@/db/queries/users";
import { apiRoute } from "@/lib/platform/api/route";
import { createUserAudited, newUserSchema } from "@/lib/platform/auth/user-service";

export const GET = apiRoute({ role: "admin" }, async ({ db }) => ({ items: await listUsers(db), nextCursor: null }));

export const POST = apiRoute({ role: "admin", body: newUserSchema }, async ({ db, body, principal }) =>
  Response.json(await createUserAudited(db, principal, body), { status: 201 }),
);
