import { z } from "zod";
import { getProjectById } from "@/db/queries/projects";
import { AppError } from "@/lib/platform/api/app-error";
import { apiRoute } from "@/lib/platform/api/route";
import { projectSlugSchema } from "@/lib/platform/auth/project-slug";
import { deleteProjectAudited, projectPatchSchema, projectView, renameProjectAudited, requireProjectAccess } from "@/lib/platform/auth/project-service";

const params = z.object({ slug: projectSlugSchema });

/** One project the caller belongs to, with their role there; any other: 404. */
export const GET = apiRoute({ role: "viewer", params }, async ({ db, request, params }) => {
  const inProject = await requireProjectAccess(db, request, params.slug, "viewer");
  const project = await getProjectById(db, { id: inProject.projectId });
  if (!project) throw AppError.notFound(`Project ${params.slug}`);
  return projectView(project, inProject.role);
});

/** Renames it (instance admins); the slug stays. */
export const PATCH = apiRoute({ role: "instance", params, body: projectPatchSchema }, async ({ db, params, body, principal }) =>
  renameProjectAudited(db, principal, params.slug, body),
);

/** Deletes it and everything in it (instance admins); never the default project. */
export const DELETE = apiRoute({ role: "instance", params }, async ({ db, params, principal }) => {
  await deleteProjectAudited(db, principal, params.slug);
  return new Response(null, { status: 204 });
});
