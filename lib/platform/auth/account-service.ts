/**
 * Setup, sign-in and API tokens: the rules shared by the API and the browser's server actions.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { createApiToken, revokeApiToken } from "@/db/queries/api-tokens";
import { audited, logAudit } from "@/db/queries/audit";
import { createSession, deleteSession } from "@/db/queries/sessions";
import { countUsers, createFirstAdmin, getUserByEmail } from "@/db/queries/users";
import { grantSelfGovernance } from "@/db/queries/self-governance";
import { listMemberships, setMemberRole } from "@/db/queries/projects";
import { DEFAULT_PROJECT_ID, DEFAULT_PROJECT_SLUG, ROLES, type Role } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";
import { hashPassword, verifyPassword } from "./password";
import { passwordSignInOff, passwordSignInState } from "./password-sign-in";
import { SESSION_TTL_MS } from "./principal";
import { roleAtLeast, type Principal } from "./roles";
import { hashSecretToken, newSecretToken } from "./secret-token";
import { beginSignInAttempt } from "./sign-in-throttle";

export const credentialsSchema = z.object({
  email: z.email("enter a valid email address").max(320),
  password: z.string().min(8, "password must be at least 8 characters").max(200),
});

export const tokenRequestSchema = z.object({
  name: z.string().trim().min(1, "name the token").max(100),
  role: z.enum(ROLES),
});

/**
 * A token of a project (the default one when unnamed: the first-run setup and older callers),
 * acting there with `role` at most, and never above its owner's role there (principal.ts).
 */
export async function issueApiToken(db: Db, params: { projectId?: string; name: string; role: Role; userId?: string; actor: string }) {
  const token = newSecretToken("hp_");
  const projectId = params.projectId ?? DEFAULT_PROJECT_ID;
  const row = await audited(
    db,
    { projectId, actor: params.actor, action: "token.create", entityType: "api_token" },
    (tx) => createApiToken(tx, { projectId, name: params.name, role: params.role, userId: params.userId, tokenHash: hashSecretToken(token), prefix: token.slice(0, 10) }),
    (row) => ({ entityId: row.id, after: row }),
  );
  return { token, ...row };
}

/** A token made by someone in their project: its role is at most theirs there (a 403 says so). */
export async function issueProjectToken(db: Db, principal: Principal, input: z.infer<typeof tokenRequestSchema>) {
  if (!roleAtLeast(principal.role, input.role)) {
    throw AppError.forbidden(`You are ${principal.role} in project ${principal.projectSlug}: a token you make can be ${principal.role} at most`);
  }
  return issueApiToken(db, { projectId: principal.projectId, name: input.name, role: input.role, userId: principal.userId, actor: principal.label });
}

interface FirstAdmin {
  id: string;
  email: string;
  role: "admin";
  instanceAdmin: true;
}

/**
 * The first person: instance admin and admin of the default project. While no account exists
 * only (the advisory lock in createFirstAdmin serializes racing requests). The API's setup answers
 * with an admin token of the default project, its only way to act next; the setup form signs the
 * person in instead and makes none (`apiToken: false`), so no admin token exists that nobody saw.
 */
export async function setupFirstAdmin(db: Db, params: z.infer<typeof credentialsSchema>, options: { apiToken: false }): Promise<{ user: FirstAdmin }>;
export async function setupFirstAdmin(db: Db, params: z.infer<typeof credentialsSchema>, options?: { apiToken: true }): Promise<{ user: FirstAdmin; token: string }>;
export async function setupFirstAdmin(db: Db, params: z.infer<typeof credentialsSchema>, options: { apiToken: boolean } = { apiToken: true }) {
  // Once set up, refuse before the (deliberately slow) hash: the endpoint is public.
  if ((await countUsers(db)) > 0) throw AppError.conflict("Hookplane is already set up; sign in instead");
  const passwordHash = await hashPassword(params.password);
  // The admin, its membership, its token and the audit rows, or none of them.
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const user = await audited(
      tx,
      { projectId: null, actor: params.email, action: "setup", entityType: "user" },
      async (tx) => {
        const user = await createFirstAdmin(tx, { email: params.email, passwordHash });
        if (!user) throw AppError.conflict("Hookplane is already set up; sign in instead");
        await setMemberRole(tx, { projectId: DEFAULT_PROJECT_ID, userId: user.id, role: "admin" });
        // Nobody else could grant it yet: the first admin may change the rules over their own agents.
        await grantSelfGovernance(tx, { projectId: DEFAULT_PROJECT_ID, userId: user.id, grantedBy: "setup: the first admin" });
        return user;
      },
      (user) => ({ actor: user.email, entityId: user.id, after: { email: user.email, instanceAdmin: true, project: DEFAULT_PROJECT_SLUG, role: "admin" } }),
    );
    const admin: FirstAdmin = { id: user.id, email: user.email, role: "admin", instanceAdmin: true };
    if (!options.apiToken) return { user: admin };
    const { token } = await issueApiToken(tx, { projectId: DEFAULT_PROJECT_ID, name: "setup", role: "admin", userId: user.id, actor: user.email });
    return { token, user: admin };
  });
}

/**
 * Revokes a token of the principal's project and closes, in every web process, the sockets it opened (the notice goes out at
 * commit). Undefined, and nothing written, when no active token has this id.
 */
export async function revokeApiTokenAudited(db: Db, principal: Principal, params: { id: string }) {
  return audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "token.revoke", entityType: "api_token", entityId: params.id },
    async (tx) => {
      const row = await revokeApiToken(tx, { projectId: principal.projectId, id: params.id });
      if (row) await announceAccessChange(tx, { tokenId: row.id });
      return row;
    },
    (row) => (row ? {} : null),
  );
}

/**
 * Checked against when the email has no account, so an unknown email costs the same hash as a
 * known one and answer times do not tell which emails have accounts. Made once per process.
 */
let dummyHash: Promise<string> | undefined;
function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}

/**
 * Opens a browser session for a user: the cookie's value, of which only the SHA-256 is stored.
 * `providerId` names the single sign-on provider the person came through.
 */
export async function openSession(db: Db, params: { userId: string; providerId?: string }): Promise<string> {
  const sessionToken = newSecretToken("");
  await createSession(db, { tokenHash: hashSecretToken(sessionToken), userId: params.userId, providerId: params.providerId, ttlMs: SESSION_TTL_MS });
  return sessionToken;
}

/** What a person with an account but no role yet is told (never before their credentials checked out). */
export const NO_ROLE_MESSAGE = "Your account has no access yet: an admin must add you to a project (Settings → Members).";

/**
 * Verifies credentials and opens a session. Attempts are throttled per client address and per
 * account from that address (sign-in-throttle.ts); known and unknown emails take the same path.
 * A person in no project (and not an instance admin) is told NO_ROLE_MESSAGE, after their
 * password checked out. With password sign-in turned off (password-sign-in.ts) nothing is
 * checked and nothing opened, except an instance admin's password while HOOKPLANE_PASSWORD_BREAK_GLASS is set (audited).
 */
export async function signIn(db: Db, params: z.infer<typeof credentialsSchema> & { /** lib/platform/security/client-address.ts */ address: string }) {
  const policy = await passwordSignInState(db);
  if (!policy.enabled && !policy.breakGlass) throw passwordSignInOff();
  const email = params.email.toLowerCase();
  const attempt = await beginSignInAttempt(db, { email, address: params.address });
  const user = await getUserByEmail(db, { email });
  // An account without a password (single sign-on only) is checked against the dummy hash too.
  const matches = await verifyPassword(params.password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || user.disabled || !user.passwordHash || !matches) {
    await attempt.failed();
    throw new AppError("invalid_credentials", "Wrong email or password");
  }
  await attempt.succeeded();
  if (!policy.enabled) {
    if (!user.instanceAdmin) throw passwordSignInOff();
    await logAudit(db, { projectId: null, actor: user.email, action: "sign_in.break_glass", entityType: "user", entityId: user.id, after: { email: user.email } });
  }
  const projects = await listMemberships(db, { userId: user.id });
  if (!user.instanceAdmin && projects.length === 0) throw new AppError("forbidden", NO_ROLE_MESSAGE);
  const sessionToken = await openSession(db, { userId: user.id });
  return { sessionToken, user: { id: user.id, email: user.email, instanceAdmin: user.instanceAdmin, projects: projects.map((p) => ({ slug: p.slug, role: p.role })) } };
}

/** Ends the session and closes, in every web process, the sockets it opened. */
export async function signOut(db: Db, sessionToken: string | undefined) {
  if (!sessionToken) return;
  const sessionHash = hashSecretToken(sessionToken);
  await deleteSession(db, { tokenHash: sessionHash });
  await announceAccessChange(db, { sessionHash });
}
