import { listUsers } from "@/db/queries/users";
import { apiRoute } from "@/lib/platform/api/route";
import { createAccountAudited, newAccountSchema } from "@/lib/platform/auth/user-service";

/** Every account of the instance (instance admins); a project's people: /projects/{slug}/members. */
export const GET = apiRoute({ role: "instance" }, async ({ db }) => ({ items: await listUsers(db), nextCursor: null }));

/** A new account; with `role`, also a member of the request's project. */
export const POST = apiRoute({ role: "instance", body: newAccountSchema }, async ({ db, body, principal }) =>
  Response.json(await createAccountAudited(db, principal, body), { status: 201 }),
);
