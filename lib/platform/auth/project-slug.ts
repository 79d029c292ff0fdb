/**
 * A project's slug: what paths (`/api/v1/projects/<slug>/...`), the dashboard's switcher and
 * single sign-on mappings name a project by. Pure, so the server's path rewrite and the schemas
 * share one rule.
 */
import { z } from "zod";

export const PROJECT_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

const SLUG_RULE = "a project slug is 2 to 40 lowercase letters, digits and dashes, starting and ending with a letter or digit (team-a)";

export const projectSlugSchema = z
  .string({ error: SLUG_RULE })
  .trim()
  .min(2, SLUG_RULE)
  .max(40, SLUG_RULE)
  .regex(PROJECT_SLUG_PATTERN, SLUG_RULE);

export function isProjectSlug(value: string): boolean {
  return value.length >= 2 && value.length <= 40 && PROJECT_SLUG_PATTERN.test(value);
}

/** Path segments of a project's own routes, which are served as they are (not rewritten). */
const PROJECT_OWN_ROUTES = new Set(["members"]);

/**
 * `/api/v1/projects/<slug>/<rest>?q` → `/api/v1/<rest>?q` acting in `<slug>`; undefined for any
 * other path, for the project's own routes (`/api/v1/projects/<slug>`, `.../members...`) and for
 * a segment that is no slug (the router then answers 404).
 */
export function projectPathRewrite(url: string): { url: string; project: string } | undefined {
  const match = /^\/api\/v1\/projects\/([^/?#]+)\/([^?#]*)(.*)$/s.exec(url);
  if (!match) return undefined;
  const [, slug, rest, tail] = match;
  if (!isProjectSlug(slug) || rest === "" || PROJECT_OWN_ROUTES.has(rest.split("/")[0])) return undefined;
  return { url: `/api/v1/${rest}${tail}`, project: slug };
}
