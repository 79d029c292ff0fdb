/**
 * Who is calling: from the session cookie or an `Authorization: Bearer` token (or `?token=` on
 * the WebSocket). Used by route handlers, server actions and the stream hub alike.
 */
import type { Db } from "@/db/client";
import { touchToken } from "@/db/queries/api-tokens";
import { cachedActiveToken, noteTokenUsed } from "@/db/queries/token-cache";
import { getSessionUser } from "@/db/queries/sessions";
import { assertTokenProject, PROJECT_COOKIE, PROJECT_HEADER, userProjectAccess, type ProjectChoice } from "./project-access";
import { lesserRole, type Principal } from "./roles";
import { hashSecretToken } from "./secret-token";

export const SESSION_COOKIE = "hp_session";
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
/** How stale a token's "last used" may get before a request stamps it again. */
const LAST_USED_PRECISION_MS = 60_000;

/** A cookie that is not valid percent-encoding is no session: the caller is anonymous, not a 500. */
function decodeCookieValue(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** The secret a request presents, before it is checked, and the project it asks to act in. */
export interface Credential {
  kind: "session" | "token";
  secret: string;
  project?: ProjectChoice;
}

export function readCookie(cookieHeader: string | null | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeCookieValue(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function bearerToken(headers: { get(name: string): string | null }): string | undefined {
  const auth = headers.get("authorization");
  return auth?.toLowerCase().startsWith("bearer ") ? auth.slice(7).trim() : undefined;
}

/** The project a request names (header or `?project=`) and the one the dashboard last chose (cookie). */
export function projectChoiceFromHeaders(headers: { get(name: string): string | null }, queryProject?: string | null): ProjectChoice {
  const explicit = headers.get(PROJECT_HEADER) ?? queryProject ?? undefined;
  return { explicit: explicit || undefined, preferred: readCookie(headers.get("cookie"), PROJECT_COOKIE) };
}

export function credentialFromHeaders(
  headers: { get(name: string): string | null },
  queryToken?: string | null,
  queryProject?: string | null,
): Credential | undefined {
  const project = projectChoiceFromHeaders(headers, queryProject);
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return { kind: "token", secret: bearer, project };
  if (queryToken) return { kind: "token", secret: queryToken, project };
  const session = readCookie(headers.get("cookie"), SESSION_COOKIE);
  return session ? { kind: "session", secret: session, project } : undefined;
}

/** A session's person in the project chosen; undefined when signed out or in no project at all. */
export async function principalFromSessionToken(db: Db, token: string | undefined, project: ProjectChoice = {}): Promise<Principal | undefined> {
  if (!token) return undefined;
  const user = await getSessionUser(db, { tokenHash: hashSecretToken(token) });
  if (!user) return undefined;
  const access = await userProjectAccess(db, user, project);
  if (!access) return undefined;
  return { kind: "user", id: user.id, userId: user.id, email: user.email, label: user.email, instanceAdmin: user.instanceAdmin, ...access };
}

/**
 * A token acts in its project with the lesser of its own role and its owner's role there now, so
 * demoting a person (or taking them out of the project) demotes their tokens; a removed (disabled)
 * owner's tokens act no more. A token with no owner (made by another token) keeps its own role.
 * Never an instance admin: instance-wide changes need a person signed in.
 */
export async function principalFromApiToken(db: Db, token: string | undefined, project: ProjectChoice = {}): Promise<Principal | undefined> {
  if (!token) return undefined;
  // Read at most CREDENTIAL_TTL_MS ago, or since the last access notice (db/queries/token-cache.ts).
  const row = await cachedActiveToken(db, hashSecretToken(token));
  if (!row) return undefined;
  if (row.userId && (row.ownerDisabled !== false || !row.ownerRole)) return undefined;
  assertTokenProject(row.projectSlug, project);
  // Best effort: a failed "last used" stamp must not fail the request. Stamped once a minute at
  // most: a hook bridge calls with its token before every tool call, and the page shows minutes.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_PRECISION_MS) {
    noteTokenUsed(row);
    touchToken(db, { id: row.id }).catch(() => {});
  }
  // A bridge credential carries its person's role (for their hooks' conditions); it reaches
  // nothing with it (roles.ts). Any other token the lesser of its own and its owner's.
  const role = row.kind === "bridge" && row.ownerRole ? row.ownerRole : row.ownerRole ? lesserRole(row.role, row.ownerRole) : row.role;
  return {
    kind: "token",
    id: row.id,
    userId: row.userId ?? undefined,
    email: row.ownerEmail ?? undefined,
    ...(row.ownerGroups && row.ownerGroups.length > 0 && { groups: row.ownerGroups }),
    // A person's bridge credential acts as that person on the record, a service account's token as
    // the account; other tokens by their name.
    label: row.serviceAccountName ? `service:${row.serviceAccountName}` : row.kind === "bridge" && row.ownerEmail ? row.ownerEmail : `token:${row.name}`,
    role,
    projectId: row.projectId,
    projectSlug: row.projectSlug,
    instanceAdmin: false,
    ...(row.kind === "bridge" && { bridge: true }),
    ...(row.serviceAccountId && row.serviceAccountName && { serviceAccount: { id: row.serviceAccountId, name: row.serviceAccountName } }),
  };
}

export function principalFromCredential(db: Db, credential: Credential | undefined): Promise<Principal | undefined> {
  if (!credential) return Promise.resolve(undefined);
  return credential.kind === "token"
    ? principalFromApiToken(db, credential.secret, credential.project)
    : principalFromSessionToken(db, credential.secret, credential.project);
}

/**
 * The caller acting in the project a path names (`/api/v1/projects/<slug>` and its members):
 * whatever project the request's header or cookie chose, this one holds. Not a member: 404; a
 * token of another project: 403 (project-access.ts).
 */
export async function principalInProject(db: Db, headers: { get(name: string): string | null }, slug: string): Promise<Principal | undefined> {
  const credential = credentialFromHeaders(headers);
  return principalFromCredential(db, credential && { ...credential, project: { explicit: slug } });
}

export async function principalFromHeaders(
  db: Db,
  headers: { get(name: string): string | null },
  queryToken?: string | null,
): Promise<Principal | undefined> {
  return principalFromCredential(db, credentialFromHeaders(headers, queryToken));
}
