/**
 * Who is calling: from the session cookie or an `Authorization: Bearer` token (or `?token=` on
 * the WebSocket). Used by route handlers, server actions and the stream hub alike.
 */
import type { Db } from "@/db/client";
import { getActiveToken, touchToken } from "@/db/queries/api-tokens";
import { getSessionUser } from "@/db/queries/sessions";
import type { Principal } from "./roles";
import { hashSecretToken } from "./secret-token";

export const SESSION_COOKIE = "hp_session";
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;

/** A cookie that is not valid percent-encoding is no session: the caller is anonymous, not a 500. */
function decodeCookieValue(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

export function readCookie(cookieHeader: string | null | undefined, name: string): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeCookieValue(part.slice(eq + 1).trim());
  }
  return undefined;
}

export async function principalFromSessionToken(db: Db, token: string | undefined): Promise<Principal | undefined> {
  if (!token) return undefined;
  const user = await getSessionUser(db, { tokenHash: hashSecretToken(token) });
  return user ? { kind: "user", id: user.id, userId: user.id, label: user.email, role: user.role } : undefined;
}

export async function principalFromApiToken(db: Db, token: string | undefined): Promise<Principal | undefined> {
  if (!token) return undefined;
  const row = await getActiveToken(db, { tokenHash: hashSecretToken(token) });
  if (!row) return undefined;
  // Best effort: a failed "last used" stamp must not fail the request.
  touchToken(db, { id: row.id }).catch(() => {});
  return { kind: "token", id: row.id, userId: row.userId ?? undefined, label: `token:${row.name}`, role: row.role };
}

export async function principalFromHeaders(
  db: Db,
  headers: { get(name: string): string | null },
  queryToken?: string | null,
): Promise<Principal | undefined> {
  const auth = headers.get("authorization");
  if (auth?.toLowerCase().startsWith("bearer ")) return principalFromApiToken(db, auth.slice(7).trim());
  if (queryToken) return principalFromApiToken(db, queryToken);
  return principalFromSessionToken(db, readCookie(headers.get("cookie"), SESSION_COOKIE));
}
