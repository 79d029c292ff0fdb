/**
 * Single sign-on providers as admins manage them (API and Settings): every change audited, the
 * client secret sealed with the secret box on the way in and never returned, shown or written to
 * an audit row. Whether password sign-in may be turned off lives here too, since it depends on
 * the providers.
 */
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { logAudit } from "@/db/queries/audit";
import { deleteOidcProvider, getOidcProvider, getOidcProviderByName, insertOidcProvider, listOidcProviders, updateOidcProvider, type OidcProviderRow } from "@/db/queries/oidc-providers";
import { deletePasswordSessions } from "@/db/queries/sessions";
import { getProjectBySlug } from "@/db/queries/projects";
import { hasIdentityAt } from "@/db/queries/user-identities";
import type { GroupRoleMapping } from "@/db/schema";
import { AppError } from "@/lib/platform/api/app-error";
import { passwordSignInState, storePasswordSignIn } from "@/lib/platform/auth/password-sign-in";
import type { Principal } from "@/lib/platform/auth/roles";
import type { SecretBox } from "@/lib/platform/security/secret-box";
import { callbackUrl, clientSecretName, issuerProblem } from "./oidc-client";
import type { ProviderCreate, ProviderPatch } from "./provider-schema";

/** A provider as the API and Settings show it: everything but the client secret. */
export function providerView(row: OidcProviderRow) {
  return {
    id: row.id,
    name: row.name,
    issuer: row.issuer,
    clientId: row.clientId,
    scopes: row.scopes,
    groupsClaim: row.groupsClaim,
    roleMappings: row.roleMappings,
    defaultRole: row.defaultRole,
    createUsers: row.createUsers,
    linkByEmail: row.linkByEmail,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
export type ProviderView = ReturnType<typeof providerView>;

/** The audit row's picture of a provider: the view without dates. */
function auditView(row: OidcProviderRow) {
  const { createdAt: _c, updatedAt: _u, ...rest } = providerView(row);
  return rest;
}

function assertIssuerAllowed(issuer: string | undefined): void {
  const problem = issuer === undefined ? undefined : issuerProblem(issuer);
  if (problem) throw AppError.invalid([{ path: "issuer", message: problem }]);
}

/** Every project a mapping names exists: a typo would otherwise grant nothing, silently. */
async function assertMappedProjectsExist(db: Db, mappings: readonly GroupRoleMapping[] | undefined): Promise<void> {
  const issues: { path: string; message: string }[] = [];
  for (const [i, m] of (mappings ?? []).entries()) {
    if (m.project !== undefined && !(await getProjectBySlug(db, { slug: m.project }))) {
      issues.push({ path: `roleMappings[${i}].project`, message: `no project "${m.project}" (Settings → Projects lists them)` });
    }
  }
  if (issues.length > 0) throw AppError.invalid(issues);
}

async function assertNameFree(db: Db, name: string, exceptId?: string): Promise<void> {
  const holder = await getOidcProviderByName(db, { name });
  if (holder && holder.id !== exceptId) throw AppError.conflict(`A provider is already named ${name}`);
}

export async function listProviders(db: Db) {
  return { items: (await listOidcProviders(db)).map(providerView), callbackUrl: callbackUrl() };
}

/** What the sign-in page needs: a button per provider. */
export async function listSignInProviders(db: Db) {
  return (await listOidcProviders(db)).map((p) => ({ id: p.id, name: p.name }));
}

export async function createProviderAudited(db: Db, box: SecretBox, principal: Principal, input: ProviderCreate): Promise<ProviderView> {
  assertIssuerAllowed(input.issuer);
  const id = randomUUID();
  const { clientSecret, ...fields } = input;
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    await assertMappedProjectsExist(tx, input.roleMappings);
    const row = await insertOidcProvider(tx, { id, ...fields, clientSecretSealed: box.seal(clientSecretName(id), clientSecret) });
    if (!row) throw AppError.conflict(`A provider is already named ${input.name}`);
    await logAudit(tx, { projectId: null, actor: principal.label, action: "sso_provider.create", entityType: "sso_provider", entityId: row.id, after: auditView(row) });
    return providerView(row);
  });
}

export async function updateProviderAudited(db: Db, box: SecretBox, principal: Principal, id: string, patch: ProviderPatch): Promise<ProviderView> {
  assertIssuerAllowed(patch.issuer);
  const { clientSecret, ...fields } = patch;
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const before = await getOidcProvider(tx, { id });
    if (!before) throw AppError.notFound("Provider");
    if (fields.name !== undefined) await assertNameFree(tx, fields.name, id);
    await assertMappedProjectsExist(tx, fields.roleMappings);
    const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
    const row = (await updateOidcProvider(tx, {
      id,
      set: { ...set, ...(clientSecret !== undefined && { clientSecretSealed: box.seal(clientSecretName(id), clientSecret) }) },
    }))!;
    // The secret's value is never recorded; that it changed is.
    await logAudit(tx, {
      projectId: null,
      actor: principal.label,
      action: "sso_provider.update",
      entityType: "sso_provider",
      entityId: id,
      before: auditView(before),
      after: { ...auditView(row), ...(clientSecret !== undefined && { clientSecretReplaced: true }) },
    });
    return providerView(row);
  });
}

/**
 * Deletes a provider. The sessions opened through it end and their sockets close; the people
 * keep their accounts and identity links (another provider of the same issuer finds them). The
 * last provider cannot go while password sign-in is off: nobody could sign in.
 */
export async function deleteProviderAudited(db: Db, principal: Principal, id: string): Promise<void> {
  await db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const before = await getOidcProvider(tx, { id });
    if (!before) throw AppError.notFound("Provider");
    const providers = await listOidcProviders(tx);
    if (providers.length === 1 && !(await passwordSignInState(tx)).enabled) {
      throw AppError.conflict("Password sign-in is off and this is the only single sign-on provider: turn password sign-in on first, or nobody could sign in.");
    }
    const { sessionUserIds } = await deleteOidcProvider(tx, { id });
    await logAudit(tx, { projectId: null, actor: principal.label, action: "sso_provider.delete", entityType: "sso_provider", entityId: id, before: auditView(before), after: { endedSessionsOf: sessionUserIds.length } });
    for (const userId of sessionUserIds) await announceAccessChange(tx, { userId });
  });
}

export const authSettingsSchema = z.object({ passwordSignIn: z.boolean() });

export async function getAuthSettings(db: Db) {
  const state = await passwordSignInState(db);
  return { passwordSignIn: state.enabled, breakGlass: state.breakGlass };
}

/**
 * Turns password sign-in on or off (audited). Off needs at least one provider and an admin
 * who has signed in through one of them: the one doing it (by session or by their own token),
 * which shows single sign-on works before the passwords stop. Turning it off ends every session
 * a password opened (and closes their sockets); API tokens keep working.
 */
export async function setPasswordSignInAudited(db: Db, principal: Principal, input: z.infer<typeof authSettingsSchema>) {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const before = await passwordSignInState(tx);
    if (before.enabled === input.passwordSignIn) return getAuthSettings(tx);
    let endedSessionsOf: string[] = [];
    if (!input.passwordSignIn) {
      const providers = await listOidcProviders(tx);
      if (providers.length === 0) throw AppError.conflict("Add a single sign-on provider before turning password sign-in off.");
      const provedIt = principal.userId !== undefined && (await hasIdentityAt(tx, { userId: principal.userId, issuers: providers.map((p) => p.issuer) }));
      if (!provedIt) {
        throw AppError.conflict(
          `Sign in through single sign-on yourself first (Sign in with ${providers[0].name}), so it is known to work for an admin; then turn password sign-in off.`,
        );
      }
      endedSessionsOf = await deletePasswordSessions(tx);
    }
    await storePasswordSignIn(tx, { enabled: input.passwordSignIn });
    await logAudit(tx, {
      projectId: null,
      actor: principal.label,
      action: "auth.password_sign_in",
      entityType: "setting",
      entityId: "password_sign_in",
      before: { enabled: before.enabled },
      after: { enabled: input.passwordSignIn, ...(!input.passwordSignIn && { endedSessionsOf: endedSessionsOf.length }) },
    });
    for (const userId of endedSessionsOf) await announceAccessChange(tx, { userId });
    return getAuthSettings(tx);
  });
}
