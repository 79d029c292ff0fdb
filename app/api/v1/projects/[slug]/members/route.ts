import { z } from "zod";
import { listMembers } from "@/db/queries/projects";
import { apiRoute } from "@/lib/platform/api/route";
import { projectSlugSchema } from "@/lib/platform/auth/project-slug";
import { requireProjectAccess } from "@/lib/platform/auth/project-service";
import { addMemberAudited, newMemberSchema } from "@/lib/platform/auth/user-service";

const params = z.object({ slug: projectSlugSchema });

/** The project's members and their roles (its admins). */
export const GET = apiRoute({ role: "viewer", params }, async ({ db, request, params }) => {
  const inProject = await requireProjectAccess(db, request, params.slug, "admin");
  return { items: await listMembers(db, { projectId: inProject.projectId }), nextCursor: null };
});

/** Adds an existing account by email, or creates one when a password is given (its admins). */
export const POST = apiRoute({ role: "viewer", params, body: newMemberSchema }, async ({ db, request, params, body }) => {
  const inProject = await requireProjectAccess(db, request, params.slug, "admin");
  return Response.json(await addMemberAudited(db, inProject, { projectId: inProject.projectId }, body), { status: 201 });
});
