/**
 * People, projects and tokens for tests: a person with a role in a project (the default project
 * unless named), an instance admin, a second project, a token of a project. Written through the
 * same query modules the product uses.
 */
import type { Db } from "@/db/client";
import { createApiToken } from "@/db/queries/api-tokens";
import { createProject, setMemberRole } from "@/db/queries/projects";
import { createUser } from "@/db/queries/users";
import { DEFAULT_PROJECT_ID, type Role, type TokenKind } from "@/db/schema";
import { hashSecretToken, newSecretToken } from "@/lib/platform/auth/secret-token";

export { DEFAULT_PROJECT_ID };

export async function addPerson(
  db: Db,
  params: { email: string; role?: Role | null; projectId?: string; instanceAdmin?: boolean; passwordHash?: string | null },
) {
  const user = await createUser(db, { email: params.email, passwordHash: params.passwordHash ?? null, instanceAdmin: params.instanceAdmin });
  const role = params.role === undefined ? (params.instanceAdmin ? null : "viewer") : params.role;
  if (role) await setMemberRole(db, { projectId: params.projectId ?? DEFAULT_PROJECT_ID, userId: user.id, role });
  return user;
}

export async function addProject(db: Db, params: { slug: string; name?: string }) {
  const project = await createProject(db, { slug: params.slug, name: params.name ?? params.slug });
  if (!project) throw new Error(`project ${params.slug} exists already`);
  return project;
}

/** A token's secret, acting in `projectId` (default project) with `role`, owned by `userId` if given. */
export async function addToken(
  db: Db,
  params: { role: Role; projectId?: string; userId?: string; name?: string; kind?: TokenKind },
): Promise<{ id: string; token: string }> {
  const token = newSecretToken("hp_");
  const row = await createApiToken(db, {
    projectId: params.projectId ?? DEFAULT_PROJECT_ID,
    name: params.name ?? `test-${params.role}`,
    role: params.role,
    userId: params.userId,
    kind: params.kind,
    tokenHash: hashSecretToken(token),
    prefix: token.slice(0, 10),
  });
  return { id: row.id, token };
}

/**
 * A person with `role` in the project and a token of theirs: what sends hook events (ingest takes
 * no token that names no one). `name` names both: the token, and the person `<name>@people.test`.
 */
export async function addPersonToken(db: Db, params: { role: Role; name: string; projectId?: string }): Promise<{ id: string; token: string; userId: string }> {
  const person = await addPerson(db, { email: `${params.name.replace(/[^a-z0-9.-]+/gi, "-").toLowerCase()}@people.test`, role: params.role, projectId: params.projectId });
  return { ...(await addToken(db, { ...params, userId: person.id })), userId: person.id };
}
