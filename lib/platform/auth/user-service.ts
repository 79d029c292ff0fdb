/**
 * People: accounts (the instance's: instance admins create and remove them and say who is an
 * instance admin) and their roles in projects (each project's admins add, change and remove its
 * members). Every change is audited: account changes as instance-level entries (projectId null),
 * membership changes in their project.
 *
 * Losing a role ends what carried it at once: the person's browser sessions are deleted (they
 * sign in again and act with what they have now), their tokens act with the lower role from the
 * next request (principal.ts computes it), and every web process rechecks the sockets they opened
 * (announceAccessChange).
 *
 * Who keeps a project: a project admin cannot demote or remove the project's last admin member
 * (themselves included), so a team cannot lock itself out by accident. An instance admin can (and
 * the identity provider's groups can, single sign-on): the project is then kept by the instance
 * admins, who are admin in every project, and of whom there is always at least one.
 */
import { sql } from "drizzle-orm";
import { z } from "zod";
import { getUserBySlackId, setUserSlackId } from "@/db/queries/approval-notices";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { revokeUserTokens } from "@/db/queries/api-tokens";
import { logAudit } from "@/db/queries/audit";
import { countProjectAdmins, getMemberRole, setMemberRole } from "@/db/queries/projects";
import { deleteUserSessions } from "@/db/queries/sessions";
import { countInstanceAdmins, createUser, disableUser, getUserByEmail, getUserById, setInstanceAdmin } from "@/db/queries/users";
import { ROLES, type Role } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";
import { credentialsSchema } from "./account-service";
import { hashPassword } from "./password";
import { roleAtLeast, type Principal } from "./roles";

/**
 * Serializes every change of a person's roles or removal inside the caller's transaction: two
 * admins demoting each other at once on PostgreSQL, or an admin and a single sign-on syncing.
 */
export async function lockUserChanges(txDb: Db): Promise<void> {
  await txDb.execute(sql`select pg_advisory_xact_lock(7240116)`);
}

/** Losing access or moving to a lower role: what must end the sessions that carried the old one. */
export function isDemotion(from: Role | null, to: Role | null): boolean {
  return from !== null && (to === null || !roleAtLeast(to, from));
}

function inTransaction<T>(db: Db, fn: (txDb: Db) => Promise<T>): Promise<T> {
  return db.transaction(async (tx) => {
    const txDb = tx as unknown as Db;
    await lockUserChanges(txDb);
    return fn(txDb);
  });
}

/**
 * Sets a person's role in a project (null: out of it) so that it holds everywhere at once (see
 * the top of this file). One audit row in the project: `member.add`, `member.role` or
 * `member.remove`; `note` adds to its `after` (the groups a sign-in synced it from). Call it
 * inside a transaction that holds lockUserChanges.
 */
export async function setProjectRole(
  txDb: Db,
  params: { actor: string; projectId: string; user: { id: string; email: string }; from: Role | null; to: Role | null; note?: Record<string, unknown> },
): Promise<void> {
  const { user, from, to, projectId } = params;
  if (from === to) return;
  await setMemberRole(txDb, { projectId, userId: user.id, role: to });
  if (isDemotion(from, to)) await deleteUserSessions(txDb, { userId: user.id });
  await logAudit(txDb, {
    projectId,
    actor: params.actor,
    action: from === null ? "member.add" : to === null ? "member.remove" : "member.role",
    entityType: "user",
    entityId: user.id,
    before: from === null ? null : { email: user.email, role: from },
    after: { email: user.email, role: to, ...params.note },
  });
  await announceAccessChange(txDb, { userId: user.id });
}

// ---------------------------------------------------------------------------------------------
// Accounts (instance admins)

const roleSchema = z.enum(ROLES, { error: "a role is viewer, operator or admin" });

/** `role`: also a member of the principal's project with it; without, the account reaches nothing yet. */
export const newAccountSchema = credentialsSchema.extend({ instanceAdmin: z.boolean().default(false), role: roleSchema.optional() });

/**
 * An account, reaching nothing until it is given a role in a project (or made instance admin),
 * unless `role` makes it a member of the principal's project at once.
 */
export async function createAccountAudited(db: Db, principal: Principal, input: z.infer<typeof newAccountSchema>) {
  if (await getUserByEmail(db, { email: input.email })) throw AppError.conflict(`${input.email} already has an account`);
  // Hashed before the transaction: it takes a while and needs no lock.
  const passwordHash = await hashPassword(input.password);
  return inTransaction(db, async (txDb) => {
    if (await getUserByEmail(txDb, { email: input.email })) throw AppError.conflict(`${input.email} already has an account`);
    const user = await createUser(txDb, { email: input.email, passwordHash, instanceAdmin: input.instanceAdmin });
    await logAudit(txDb, {
      projectId: null,
      actor: principal.label,
      action: "user.create",
      entityType: "user",
      entityId: user.id,
      after: { email: user.email, instanceAdmin: user.instanceAdmin },
    });
    if (input.role) await setProjectRole(txDb, { actor: principal.label, projectId: principal.projectId, user, from: null, to: input.role });
    return { id: user.id, email: user.email, instanceAdmin: user.instanceAdmin, ...(input.role && { project: principal.projectSlug, role: input.role }) };
  });
}

type UserRow = NonNullable<Awaited<ReturnType<typeof getUserById>>>;

async function activeUser(txDb: Db, id: string): Promise<UserRow> {
  const user = await getUserById(txDb, { id });
  if (!user || user.disabled) throw AppError.notFound("User");
  return user;
}

async function assertNotLastInstanceAdmin(txDb: Db, principal: Principal, user: UserRow): Promise<void> {
  if (!user.instanceAdmin || (await countInstanceAdmins(txDb)) > 1) return;
  throw AppError.conflict(
    user.id === principal.userId
      ? "You are the last instance admin: make another person instance admin first."
      : `${user.email} is the last instance admin: make another person instance admin first.`,
  );
}

export const instanceAdminChangeSchema = z.object({ id: z.uuid("unknown user"), instanceAdmin: z.boolean() });

/**
 * Makes or unmakes an instance admin. Unmaking is a demotion: the person's sessions end and their
 * sockets close; their tokens act with their project roles from the next request. The last
 * instance admin stays one.
 */
export async function setInstanceAdminAudited(db: Db, principal: Principal, input: z.infer<typeof instanceAdminChangeSchema>) {
  return inTransaction(db, async (txDb) => {
    const user = await activeUser(txDb, input.id);
    if (user.instanceAdmin === input.instanceAdmin) return { id: user.id, email: user.email, instanceAdmin: user.instanceAdmin };
    if (!input.instanceAdmin) await assertNotLastInstanceAdmin(txDb, principal, user);
    const updated = await setInstanceAdmin(txDb, { id: user.id, instanceAdmin: input.instanceAdmin });
    if (!input.instanceAdmin) await deleteUserSessions(txDb, { userId: user.id });
    await logAudit(txDb, {
      projectId: null,
      actor: principal.label,
      action: "user.instance_admin",
      entityType: "user",
      entityId: user.id,
      before: { email: user.email, instanceAdmin: user.instanceAdmin },
      after: { email: user.email, instanceAdmin: input.instanceAdmin },
    });
    await announceAccessChange(txDb, { userId: user.id });
    return { id: updated.id, email: updated.email, instanceAdmin: updated.instanceAdmin };
  });
}

/**
 * Removes an account: the row stays (disabled) for the audit trail, their sessions end, their
 * tokens (in every project) are revoked, and their open sockets close in every web process.
 */
export async function removeUserAudited(db: Db, principal: Principal, params: { id: string }) {
  await inTransaction(db, async (txDb) => {
    const user = await activeUser(txDb, params.id);
    await assertNotLastInstanceAdmin(txDb, principal, user);
    await disableUser(txDb, { id: user.id });
    await deleteUserSessions(txDb, { userId: user.id });
    const tokens = await revokeUserTokens(txDb, { userId: user.id });
    await logAudit(txDb, {
      projectId: null,
      actor: principal.label,
      action: "user.remove",
      entityType: "user",
      entityId: user.id,
      before: { email: user.email, instanceAdmin: user.instanceAdmin },
      after: { email: user.email, disabled: true, revokedTokens: tokens.map((t) => t.id) },
    });
    await announceAccessChange(txDb, { userId: user.id });
  });
}

// ---------------------------------------------------------------------------------------------
// Members of a project (its admins)

/** An existing account by email, or a new one when a password is given. */
export const newMemberSchema = z.object({
  email: credentialsSchema.shape.email,
  role: roleSchema,
  password: credentialsSchema.shape.password.optional(),
});

export const memberRoleSchema = z.object({ role: roleSchema });

/** A project admin may not leave the project without an admin member; an instance admin may. */
async function assertKeepsProjectAdmin(txDb: Db, principal: Principal, params: { projectId: string; user: UserRow; from: Role | null; to: Role | null }) {
  if (params.from !== "admin" || params.to === "admin" || principal.instanceAdmin) return;
  if ((await countProjectAdmins(txDb, { projectId: params.projectId })) > 1) return;
  throw AppError.conflict(
    params.user.id === principal.userId
      ? "You are this project's last admin: make another member admin before changing your own role."
      : `${params.user.email} is this project's last admin: make another member admin first.`,
  );
}

/**
 * Adds a person to the project: an existing account by its email, or a new account with the
 * password given (then told to the person). An email without an account and no password is a 422
 * naming the password; someone who is a member already is a 409 (change their role instead).
 */
export async function addMemberAudited(db: Db, principal: Principal, params: { projectId: string }, input: z.infer<typeof newMemberSchema>) {
  const existing = await getUserByEmail(db, { email: input.email });
  if (!existing && input.password === undefined) {
    throw AppError.invalid([{ path: "password", message: `${input.email} has no account: give a password to create one` }]);
  }
  const passwordHash = !existing && input.password !== undefined ? await hashPassword(input.password) : null;
  return inTransaction(db, async (txDb) => {
    let user = await getUserByEmail(txDb, { email: input.email });
    if (user?.disabled) throw AppError.conflict(`${input.email} was removed; an instance admin can tell you more`);
    if (!user) {
      if (passwordHash === null) throw AppError.conflict(`${input.email} has an account now; add them again without a password`);
      user = await createUser(txDb, { email: input.email, passwordHash });
      await logAudit(txDb, { projectId: null, actor: principal.label, action: "user.create", entityType: "user", entityId: user.id, after: { email: user.email, instanceAdmin: false } });
    }
    const from = (await getMemberRole(txDb, { projectId: params.projectId, userId: user.id })) ?? null;
    if (from !== null) throw AppError.conflict(`${user.email} is already a member (${from}): change their role instead`);
    await setProjectRole(txDb, { actor: principal.label, projectId: params.projectId, user, from: null, to: input.role });
    return { userId: user.id, email: user.email, role: input.role };
  });
}

/** A member's new role; not a member of this project: 404. */
export async function changeMemberRoleAudited(db: Db, principal: Principal, params: { projectId: string; userId: string; role: Role }) {
  return inTransaction(db, async (txDb) => {
    const user = await activeUser(txDb, params.userId);
    const from = await getMemberRole(txDb, { projectId: params.projectId, userId: user.id });
    if (!from) throw AppError.notFound("Member");
    await assertKeepsProjectAdmin(txDb, principal, { projectId: params.projectId, user, from, to: params.role });
    await setProjectRole(txDb, { actor: principal.label, projectId: params.projectId, user, from, to: params.role });
    return { userId: user.id, email: user.email, role: params.role };
  });
}

/** Takes a person out of the project (their account stays); their tokens of it act no more. */
export async function removeMemberAudited(db: Db, principal: Principal, params: { projectId: string; userId: string }) {
  await inTransaction(db, async (txDb) => {
    const user = await getUserById(txDb, { id: params.userId });
    const from = user ? await getMemberRole(txDb, { projectId: params.projectId, userId: user.id }) : undefined;
    if (!user || !from) throw AppError.notFound("Member");
    await assertKeepsProjectAdmin(txDb, principal, { projectId: params.projectId, user, from, to: null });
    await setProjectRole(txDb, { actor: principal.label, projectId: params.projectId, user, from, to: null });
  });
}

// Before projects, people were created and given a role in one step: these keep that shape, in
// the principal's project (the API's POST /users, older scripts and tests).

export const newUserSchema = credentialsSchema.extend({ role: roleSchema });

/** A new account with a role in the principal's project. */
export async function createUserAudited(db: Db, principal: Principal, input: z.infer<typeof newUserSchema>) {
  if (await getUserByEmail(db, { email: input.email })) throw AppError.conflict(`${input.email} already has an account`);
  const member = await addMemberAudited(db, principal, { projectId: principal.projectId }, input);
  return { id: member.userId, email: member.email, role: member.role };
}

export const roleChangeSchema = z.object({ id: z.uuid("unknown user"), role: roleSchema });

/** A member's role in the principal's project. */
export async function changeUserRoleAudited(db: Db, principal: Principal, input: z.infer<typeof roleChangeSchema>) {
  const member = await changeMemberRoleAudited(db, principal, { projectId: principal.projectId, userId: input.id, role: input.role });
  return { id: member.userId, email: member.email, role: member.role };
}

// ---------------------------------------------------------------------------------------------

/** A Slack member id (`U…` or `W…`): how a click on an approval's Slack button names its Hookplane user. */
export const slackIdChangeSchema = z.object({
  id: z.uuid("unknown user"),
  slackUserId: z
    .string()
    .trim()
    .regex(/^[UW][A-Z0-9]{2,30}$/, "a Slack member id looks like U0123ABCD (Slack: profile → ⋮ → Copy member ID)")
    .nullable(),
});

/** Links (or with null unlinks) a person's Slack account; one Slack member per person (instance-level). */
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
    await logAudit(txDb, {
      projectId: null,
      actor: principal.label,
      action: "user.slack",
      entityType: "user",
      entityId: user.id,
      before: { email: user.email },
      after: { email: user.email, slackUserId: input.slackUserId },
    });
    return updated;
  });
}
