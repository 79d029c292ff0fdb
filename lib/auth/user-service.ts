import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@/db/client";
import { audited, logAudit } from "@/db/queries/audit";
import { countAdmins, createUser, getUserByEmail, getUserById, updateUserRole } from "@/db/queries/users";
import { ROLES } from "@/db/schema";
import { ApiError } from "@/lib/api/errors";
import { credentialsSchema } from "./account-service";
import { hashPassword } from "./password";
import type { Principal } from "./roles";

export const newUserSchema = credentialsSchema.extend({ role: z.enum(ROLES) });

export async function createUserAudited(db: Db, principal: Principal, input: z.infer<typeof newUserSchema>) {
  if (await getUserByEmail(db, { email: input.email })) throw ApiError.conflict(`${input.email} already has an account`);
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

/**
 * Changes a user's role. Refuses to take away the last admin role, so the dashboard can never
 * lock everyone out of users, secrets and command hooks. The advisory lock serializes two admins
 * demoting each other at once on PostgreSQL.
 */
export async function changeUserRoleAudited(db: Db, principal: Principal, input: z.infer<typeof roleChangeSchema>) {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Db;
    await tx.execute(sql`select pg_advisory_xact_lock(7240116)`);
    const user = await getUserById(txDb, { id: input.id });
    if (!user) throw ApiError.notFound("User");
    if (user.role === input.role) return user;
    if (user.role === "admin" && (await countAdmins(txDb)) <= 1) {
      throw ApiError.conflict(
        user.id === principal.userId
          ? "You are the last admin: make another user admin before changing your own role."
          : `${user.email} is the last admin: make another user admin first.`,
      );
    }
    const updated = await updateUserRole(txDb, { id: user.id, role: input.role });
    await logAudit(txDb, { actor: principal.label, action: "user.role", entityType: "user", entityId: user.id, before: { email: user.email, role: user.role }, after: { email: user.email, role: input.role } });
    return { id: updated.id, email: updated.email, role: updated.role };
  });
}
