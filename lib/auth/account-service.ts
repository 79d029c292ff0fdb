/**
 * Setup, sign-in and API tokens: the rules shared by the API and the browser's server actions.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { createApiToken, revokeApiToken } from "@/db/queries/api-tokens";
import { audited } from "@/db/queries/audit";
import { createSession, deleteSession } from "@/db/queries/sessions";
import { clearSignInFailures, getSignInFailures, recordSignInFailure } from "@/db/queries/sign-in-failures";
import { countUsers, createFirstAdmin, getUserByEmail } from "@/db/queries/users";
import { ROLES, type Role } from "@/db/schema";
import { ApiError } from "@/lib/api/errors";
import { hashPassword, verifyPassword } from "./password";
import { SESSION_TTL_MS } from "./principal";
import { hashSecretToken, newSecretToken } from "./secret-token";

export const credentialsSchema = z.object({
  email: z.email("enter a valid email address").max(320),
  password: z.string().min(8, "password must be at least 8 characters").max(200),
});

export const tokenRequestSchema = z.object({
  name: z.string().trim().min(1, "name the token").max(100),
  role: z.enum(ROLES),
});

/** Failures allowed before sign-in slows down, and the longest wait. */
const FREE_FAILURES = 5;
const MAX_LOCK_MS = 5 * 60 * 1000;

export async function issueApiToken(db: Db, params: { name: string; role: Role; userId?: string; actor: string }) {
  const token = newSecretToken("hp_");
  const row = await audited(
    db,
    { actor: params.actor, action: "token.create", entityType: "api_token" },
    (tx) => createApiToken(tx, { name: params.name, role: params.role, userId: params.userId, tokenHash: hashSecretToken(token), prefix: token.slice(0, 10) }),
    (row) => ({ entityId: row.id, after: row }),
  );
  return { token, ...row };
}

/** Revokes an active token; a 404 when no active token has this id. */
export async function revokeApiTokenAudited(db: Db, params: { id: string; actor: string }) {
  await audited(db, { actor: params.actor, action: "token.revoke", entityType: "api_token", entityId: params.id }, async (tx) => {
    if (!(await revokeApiToken(tx, { id: params.id }))) throw ApiError.notFound("Active token");
  });
}

export async function setupFirstAdmin(db: Db, params: z.infer<typeof credentialsSchema>) {
  // Once set up, refuse before the (deliberately slow) hash: the endpoint is public.
  if ((await countUsers(db)) > 0) throw ApiError.conflict("Hookplane is already set up; sign in instead");
  const passwordHash = await hashPassword(params.password);
  // The admin, its token and both audit rows, or none of them.
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const user = await audited(
      tx,
      { actor: params.email, action: "setup", entityType: "user" },
      async (tx) => {
        const user = await createFirstAdmin(tx, { email: params.email, passwordHash });
        if (!user) throw ApiError.conflict("Hookplane is already set up; sign in instead");
        return user;
      },
      (user) => ({ actor: user.email, entityId: user.id, after: { email: user.email, role: user.role } }),
    );
    const { token } = await issueApiToken(tx, { name: "setup", role: "admin", userId: user.id, actor: user.email });
    return { token, user: { id: user.id, email: user.email, role: user.role } };
  });
}

function lockRemainingMs(failures: number, lastFailureAt: Date): number {
  if (failures < FREE_FAILURES) return 0;
  const lockMs = Math.min(MAX_LOCK_MS, 1000 * 2 ** (failures - FREE_FAILURES));
  return Math.max(0, lastFailureAt.getTime() + lockMs - Date.now());
}

/** Verifies credentials and opens a session; repeated failures for an email are slowed down. */
export async function signIn(db: Db, params: z.infer<typeof credentialsSchema>) {
  const key = params.email.toLowerCase();
  const record = await getSignInFailures(db, { key });
  const waitMs = record ? lockRemainingMs(record.failures, record.lastFailureAt) : 0;
  if (waitMs > 0) {
    throw new ApiError(429, "too_many_attempts", `Too many failed sign-ins; try again in ${Math.ceil(waitMs / 1000)} s`);
  }
  const user = await getUserByEmail(db, { email: key });
  const ok = user && !user.disabled && (await verifyPassword(params.password, user.passwordHash));
  if (!ok) {
    await recordSignInFailure(db, { key });
    throw new ApiError(401, "invalid_credentials", "Wrong email or password");
  }
  await clearSignInFailures(db, { key });
  const sessionToken = newSecretToken("");
  await createSession(db, { tokenHash: hashSecretToken(sessionToken), userId: user.id, ttlMs: SESSION_TTL_MS });
  return { sessionToken, user: { id: user.id, email: user.email, role: user.role } };
}

export async function signOut(db: Db, sessionToken: string | undefined) {
  if (sessionToken) await deleteSession(db, { tokenHash: hashSecretToken(sessionToken) });
}
