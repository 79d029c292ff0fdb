/**
 * Who is calling: from the session cookie or an `Authorization: Bearer` token (or `?token=` on
 * the WebSocket). Used by route handlers, server actions and the stream hub alike.
 */
import type { Db } from "@/db/client";
import { getActiveToken, touchToken } from "@/db/queries/api-tokens";
import { getSessionUser } from "@/db/queries/sessions";
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

/** The secret a request presents, before it is checked. */
export interface Credential {
  kind: "session" | "token";
  secret: string;
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

export function credentialFromHeaders(headers: { get(name: string): string | null }, queryToken?: string | null): Credential | undefined {
  const bearer = bearerToken(headers);
  if (bearer !== undefined) return { kind: "token", secret: bearer };
  if (queryToken) return { kind: "token", secret: queryToken };
  const session = readCookie(headers.get("cookie"), SESSION_COOKIE);
  return session ? { kind: "session", secret: session } : undefined;
}

export async function principalFromSessionToken(db: Db, token: string | undefined): Promise<Principal | undefined> {
  if (!token) return undefined;
  const user = await getSessionUser(db, { tokenHash: hashSecretToken(token) });
  return user ? { kind: "user", id: user.id, userId: user.id, label: user.email, role: user.role } : undefined;
}

/**
 * A token acts with the lesser of its own role and its owner's role now, so demoting a person
 * demotes their tokens; a removed (disabled) owner's tokens act no more. A token with no owner
 * (made by another token) keeps its own role.
 */
export async function principalFromApiToken(db: Db, token: string | undefined): Promise<Principal | undefined> {
  if (!token) return undefined;
  const row = await getActiveToken(db, { tokenHash: hashSecretToken(token) });
  if (!row) return undefined;
  if (row.userId && (row.ownerDisabled !== false || !row.ownerRole)) return undefined;
  // Best effort: a failed "last used" stamp must not fail the request. Stamped once a minute at
  // most: a hook bridge calls with its token before every tool call, and the page shows minutes.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() >= LAST_USED_PRECISION_MS) touchToken(db, { id: row.id }).catch(() => {});
  const role = row.ownerRole ? lesserRole(row.role, row.ownerRole) : row.role;
  return { kind: "token", id: row.id, userId: row.userId ?? undefined, label: `token:${row.name}`, role };
}

export function principalFromCredential(db: Db, credential: Credential | undefined): Promise<Principal | undefined> {
  if (!credential) return Promise.resolve(undefined);
  return credential.kind === "token" ? principalFromApiToken(db, credential.secret) : principalFromSessionToken(db, credential.secret);
}

export async function principalFromHeaders(
  db: Db,
  headers: { get(name: string): string | null },
  queryToken?: string | null,
): Promise<Principal | undefined> {
  return principalFromCredential(db, credentialFromHeaders(headers, queryToken));
}
