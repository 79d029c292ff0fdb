import { sql } from "drizzle-orm";
import { z } from "zod";
import { getUserBySlackId, setUserSlackId } from "@/db/queries/approval-notices";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { revokeUserTokens } from "@/db/queries/api-tokens";
import { audited, logAudit } from "@/db/queries/audit";
import { deleteUserSessions } from "@/db/queries/sessions";
import { countAdmins, createUser, disableUser, getUserByEmail, getUserById, updateUserRole } from "@/db/queries/users";
import { ROLES, type Role } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";
import { credentialsSchema } from "./account-service";
import { hashPassword } from "./password";
import { roleAtLeast, type Principal } from "./roles";

export const newUserSchema = credentialsSchema.extend({ role: z.enum(ROLES) });

export async function createUserAudited(db: Db, principal: Principal, input: z.infer<typeof newUserSchema>) {
  if (await getUserByEmail(db, { email: input.email })) throw AppError.conflict(`${input.email} already has an account`);
  // Hashed before the transaction: it takes a while and needs no lock.
  const passwordHash = await hashPassword(input.password);
  const user = await audited(
    db,
    { actor: principal.label, action: "user.create", entityType: "user" },
    (tx) => createUser(tx, { email: input.email, role: input.role, passwordHash }),
    (user) => ({ entityId: user.id, after: { email: user.email, role: user.role } }),
  );
  return { id: user.id, email: user.email, role: user.role };
}

export const roleChangeSchema = z.object({ id: z.uuid("unknown user"), role: z.enum(ROLES) });

type UserRow = NonNullable<Awaited<ReturnType<typeof getUserById>>>;

/**
 * Serializes every change of a user's role or removal inside the caller's transaction: two admins
 * demoting each other at once on PostgreSQL, or an admin and a single sign-on syncing the role.
 */
export async function lockUserChanges(txDb: Db): Promise<void> {
  await txDb.execute(sql`select pg_advisory_xact_lock(7240116)`);
}

/** Losing access or moving to a lower role: what must end the sessions that carried the old one. */
export function isDemotion(from: Role | null, to: Role | null): boolean {
  return from !== null && (to === null || !roleAtLeast(to, from));
}

/**
 * Sets a user's role (null: no access) so that it holds everywhere at once: a demotion ends the
 * user's browser sessions, their tokens act with the lower role from the next request
 * (principal.ts), and every web process rechecks the sockets the user opened. One `user.role`
 * audit row; `note` adds to its `after` (the groups a sign-in synced it from). Call it inside a
 * transaction that holds lockUserChanges.
 */
export async function setUserRole(
  txDb: Db,
  params: { actor: string; user: { id: string; email: string; role: Role | null }; role: Role | null; note?: Record<string, unknown> },
) {
  const { user, role } = params;
  const updated = await updateUserRole(txDb, { id: user.id, role });
  if (isDemotion(user.role, role)) await deleteUserSessions(txDb, { userId: user.id });
  await logAudit(txDb, {
    actor: params.actor,
    action: "user.role",
    entityType: "user",
    entityId: user.id,
    before: { email: user.email, role: user.role },
    after: { email: user.email, role, ...params.note },
  });
  await announceAccessChange(txDb, { userId: user.id });
  return updated;
}

/**
 * Loads the user for a role change or removal under one advisory lock (two admins demoting each
 * other at once on PostgreSQL are serialized) and refuses to take away the last admin, so the
 * dashboard can never lock everyone out of users, secrets and command hooks.
 */
async function lockedUserChange<T>(
  db: Db,
  principal: Principal,
  params: { id: string; losesAdmin: (user: UserRow) => boolean },
  change: (txDb: Db, user: UserRow) => Promise<T>,
): Promise<T> {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Db;
    await lockUserChanges(txDb);
    const user = await getUserById(txDb, { id: params.id });
    if (!user || user.disabled) throw AppError.notFound("User");
    if (user.role === "admin" && params.losesAdmin(user) && (await countAdmins(txDb)) <= 1) {
      throw AppError.conflict(
        user.id === principal.userId
          ? "You are the last admin: make another user admin before changing your own role."
          : `${user.email} is the last admin: make another user admin first.`,
      );
    }
    return change(txDb, user);
  });
}

/**
 * Changes a user's role. A demotion also ends the user's browser sessions; their tokens act with
 * the lower role from the next request (principal.ts), and every web process closes the sockets
 * the user opened, so nothing keeps the old role.
 */
export async function changeUserRoleAudited(db: Db, principal: Principal, input: z.infer<typeof roleChangeSchema>) {
  return lockedUserChange(db, principal, { id: input.id, losesAdmin: () => input.role !== "admin" }, async (txDb, user) => {
    if (user.role === input.role) return { id: user.id, email: user.email, role: user.role };
    const updated = await setUserRole(txDb, { actor: principal.label, user, role: input.role });
    return { id: updated.id, email: updated.email, role: updated.role };
  });
}

/**
 * Removes a user: the row stays (disabled) for the audit trail, their sessions end, their tokens
 * are revoked, and their open sockets close in every web process.
 */
export async function removeUserAudited(db: Db, principal: Principal, params: { id: string }) {
  await lockedUserChange(db, principal, { id: params.id, losesAdmin: () => true }, async (txDb, user) => {
    await disableUser(txDb, { id: user.id });
    await deleteUserSessions(txDb, { userId: user.id });
    const tokens = await revokeUserTokens(txDb, { userId: user.id });
    await logAudit(txDb, {
      actor: principal.label,
      action: "user.remove",
      entityType: "user",
      entityId: user.id,
      before: { email: user.email, role: user.role },
      after: { email: user.email, role: user.role, disabled: true, revokedTokens: tokens.map((t) => t.id) },
    });
    await announceAccessChange(txDb, { userId: user.id });
  });
}

/** A Slack member id (`U…` or `W…`): how a click on an approval's Slack button names its Hookplane user. */
export const slackIdChangeSchema = z.object({
  id: z.uuid("unknown user"),
  slackUserId: z
    .string()
    .trim()
    .regex(/^[UW][A-Z0-9]{2,30}$/, "a Slack member id looks like U0123ABCD (Slack: profile → ⋮ → Copy member ID)")
    .nullable(),
});

/** Links (or with null unlinks) a user's Slack account; one Slack member per user. */
export async function setUserSlackIdAudited(db: Db, principal: Principal, input: z.infer<typeof slackIdChangeSchema>) {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Db;
    const user = await getUserById(txDb, { id: input.id });
    if (!user || user.disabled) throw AppError.notFound("User");
    if (input.slackUserId) {
      const holder = await getUserBySlackId(txDb, { slackUserId: input.slackUserId });
      if (holder && holder.id !== user.id) throw AppError.conflict(`Slack member ${input.slackUserId} is already linked to ${holder.email}`);
    }
    const updated = await setUserSlackId(txDb, { id: user.id, slackUserId: input.slackUserId });
    await logAudit(txDb, { actor: principal.label, action: "user.slack", entityType: "user", entityId: user.id, before: { email: user.email }, after: { email: user.email, slackUserId: input.slackUserId } });
    return updated;
  });
}
