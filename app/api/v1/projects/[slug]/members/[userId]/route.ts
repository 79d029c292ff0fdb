import { z } from "zod";
import { apiRoute } from "@/lib/platform/api/route";
import { uuidSchema } from "@/lib/core/safe-input";
import { projectSlugSchema } from "@/lib/platform/auth/project-slug";
import { requireProjectAccess } from "@/lib/platform/auth/project-service";
import { changeMemberRoleAudited, memberRoleSchema, removeMemberAudited } from "@/lib/platform/auth/user-service";

const params = z.object({ slug: projectSlugSchema, userId: uuidSchema });

/** A member's new role (its admins): a demotion holds at once (user-service.ts). */
export const PATCH = apiRoute({ role: "viewer", params, body: memberRoleSchema }, async ({ db, request, params, body }) => {
  const inProject = await requireProjectAccess(db, request, params.slug, "admin");
  return changeMemberRoleAudited(db, inProject, { projectId: inProject.projectId, userId: params.userId, role: body.role });
});

/** Takes the person out of the project; their account stays. */
export const DELETE = apiRoute({ role: "viewer", params }, async ({ db, request, params }) => {
  const inProject = await requireProjectAccess(db, request, params.slug, "admin");
  await removeMemberAudited(db, inProject, { projectId: inProject.projectId, userId: params.userId });
  return new Response(null, { status: 204 });
});
