import { apiRoute } from "@/lib/platform/api/route";
import { createProjectAudited, listProjectsOf, projectCreateSchema } from "@/lib/platform/auth/project-service";

/** The projects the caller belongs to (an instance admin: all; a token: its own), with their role in each. */
export const GET = apiRoute({ role: "viewer" }, async ({ db, principal }) => ({ items: await listProjectsOf(db, principal), nextCursor: null }));

/** A new, empty project (instance admins); they add its members after. */
export const POST = apiRoute({ role: "instance", body: projectCreateSchema }, async ({ db, body, principal }) =>
  Response.json(await createProjectAudited(db, principal, body), { status: 201 }),
);
