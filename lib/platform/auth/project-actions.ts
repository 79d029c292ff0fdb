"use server";

import { cookies } from "next/headers";
import { z } from "zod";
import { action } from "@/lib/platform/api/action";
import { AppError } from "@/lib/platform/api/app-error";
import { PROJECT_COOKIE, userProjectAccess } from "./project-access";
import { projectSlugSchema } from "./project-slug";
import { sessionCookieOptions } from "./session-cookie";

/**
 * The dashboard's project switcher: remembers the project in the `hp_project` cookie, which every
 * page and the API (without a header or path prefix) then act in. Checked first, so the cookie
 * never names a project the person cannot reach; the page reloads after.
 */
export const switchProjectAction = action({ role: "viewer", input: z.object({ slug: projectSlugSchema }) }, async ({ db, principal, input }) => {
  if (!principal.userId) throw AppError.unauthorized("Your session has ended; sign in again.");
  const access = await userProjectAccess(db, { id: principal.userId, instanceAdmin: principal.instanceAdmin }, { explicit: input.slug });
  if (!access) throw new AppError("not_found", `No project "${input.slug}" that you are a member of`);
  (await cookies()).set(PROJECT_COOKIE, access.projectSlug, sessionCookieOptions());
  return { ok: true, message: `Now in ${access.projectSlug}` };
});
