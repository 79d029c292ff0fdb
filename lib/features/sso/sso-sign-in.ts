/**
 * Single sign-on, from the button to the session:
 *
 * 1. `startSsoSignIn`: the provider's authorization URL (code flow, PKCE S256, state, nonce) and
 *    the sealed flow cookie that must come back with the answer (sign-in-flow.ts).
 * 2. `completeSsoSignIn`: the answer checked against that cookie, the code redeemed, the ID
 *    token's claims validated by openid-client and its signature against the issuer's published
 *    keys (id-token-signature.ts), then the person found or created and their project roles
 *    synced from the groups claim, and the same kind of session a password opens.
 *
 * Who someone is: the issuer and its `sub` (user_identities), never the email alone. A first
 * sign-in whose email an existing account already has links to that account only when the
 * admin allowed it for this provider (`linkByEmail`) and the provider says `email_verified: true`;
 * otherwise it is refused, so an identity provider that lets people pick any email cannot take
 * over an admin's account.
 *
 * Every failure is an SsoSignInError with a reason the sign-in page words for people; nothing
 * half done opens a session.
 */
import { AuthorizationResponseError } from "openid-client";
import type { Db } from "@/db/client";
import { logAudit } from "@/db/queries/audit";
import { getOidcProvider, type OidcProviderRow } from "@/db/queries/oidc-providers";
import { getIdentityUser, linkIdentity, touchIdentity } from "@/db/queries/user-identities";
import { getMemberRole, getProjectBySlug, listMemberships } from "@/db/queries/projects";
import { createUser, getUserByEmail, setUserSsoGroups } from "@/db/queries/users";
import { announceAccessChange } from "@/db/queries/access-changes";
import type { Role } from "@/db/schema";
import { openSession } from "@/lib/platform/auth/account-service";
import { safeRedirectPath } from "@/lib/platform/auth/redirect-target";
import { lockUserChanges, setProjectRole } from "@/lib/platform/auth/user-service";
import { logger } from "@/lib/platform/logger";
import type { SecretBox } from "@/lib/platform/security/secret-box";
import { IdTokenUnverified } from "./id-token-signature";
import { authorizationRequest, isUnreachable, providerConfiguration, redeemAuthorizationCode } from "./oidc-client";
import { groupsFromClaim, projectRolesOnSignIn } from "./role-mapping";
import { FLOW_TTL_MS, openFlow, sealFlow } from "./sign-in-flow";
import type { SignInFailure } from "./sign-in-messages";

export class SsoSignInError extends Error {
  constructor(
    readonly reason: SignInFailure,
    /** For the log only: people see the reason's words. */
    detail: string,
    readonly providerId?: string,
  ) {
    super(detail);
    this.name = "SsoSignInError";
  }
}

/** The actor of what a sign-in changes (a created user, a synced role) in the audit log. */
export function ssoActor(provider: Pick<OidcProviderRow, "name">): string {
  return `sso:${provider.name}`;
}

/** Which step of the provider failed, in people's terms: not reached, or reached but refused. */
function providerFailure(error: unknown, provider: OidcProviderRow, step: string): SsoSignInError {
  if (error instanceof SsoSignInError) return error;
  if (error instanceof IdTokenUnverified) return new SsoSignInError("token_unverified", `${provider.name}: ${error.message}`, provider.id);
  if (error instanceof AuthorizationResponseError) {
    const reason = error.error === "access_denied" ? "denied" : "provider_error";
    return new SsoSignInError(reason, `${provider.name} answered ${error.error}: ${error.error_description ?? ""}`, provider.id);
  }
  const message = `${provider.name} ${step}: ${(error as Error).message}`;
  return new SsoSignInError(isUnreachable(error) ? "provider_unavailable" : "provider_error", message, provider.id);
}

export async function startSsoSignIn(db: Db, box: SecretBox, params: { providerId: string; next?: string | null }) {
  const provider = await getOidcProvider(db, { id: params.providerId });
  if (!provider) throw new SsoSignInError("provider_gone", `no provider ${params.providerId}`);
  let request;
  try {
    request = await authorizationRequest(await providerConfiguration(provider, box), provider.scopes);
  } catch (error) {
    throw providerFailure(error, provider, "discovery");
  }
  const flowCookie = sealFlow(box, {
    providerId: provider.id,
    state: request.state,
    nonce: request.nonce,
    codeVerifier: request.codeVerifier,
    next: safeRedirectPath(params.next, "/"),
    expiresAt: Date.now() + FLOW_TTL_MS,
  });
  return { redirectTo: request.url, flowCookie };
}

interface SignedInUser {
  id: string;
  email: string;
  instanceAdmin: boolean;
  /** The projects the person is a member of after this sign-in, with their role in each. */
  projects: { slug: string; role: Role }[];
}

/**
 * Finishes a sign-in from the provider's answer (`search`: the callback's query string) and the
 * flow cookie. Returns the new session's token, or throws SsoSignInError.
 */
export async function completeSsoSignIn(
  db: Db,
  box: SecretBox,
  params: { search: string; flowCookie: string | undefined },
): Promise<{ sessionToken: string; next: string; user: SignedInUser }> {
  const flow = openFlow(box, params.flowCookie);
  if (!flow) throw new SsoSignInError("flow_expired", "no valid sign-in flow cookie");
  const answer = new URLSearchParams(params.search);
  // Checked before anything is sent: an answer to another browser's sign-in (or a forged one) goes nowhere.
  if (answer.get("state") !== flow.state) throw new SsoSignInError("state_mismatch", "the state does not match the flow cookie", flow.providerId);
  const provider = await getOidcProvider(db, { id: flow.providerId });
  if (!provider) throw new SsoSignInError("provider_gone", `provider ${flow.providerId} was deleted during the sign-in`);
  let claims: Record<string, unknown>;
  try {
    claims = await redeemAuthorizationCode(await providerConfiguration(provider, box), { ...flow, search: params.search, groupsClaim: provider.groupsClaim });
  } catch (error) {
    throw providerFailure(error, provider, "sign-in");
  }
  const user = await signInPerson(db, provider, claims);
  const sessionToken = await openSession(db, { userId: user.id, providerId: provider.id });
  // Checked again on the way out: a flow sealed before the rule it was checked by was tightened.
  return { sessionToken, next: safeRedirectPath(flow.next, "/"), user };
}

/**
 * The Hookplane user behind validated claims: found by issuer and `sub`, linked by verified
 * email when allowed, or created; their project roles synced from the groups claim
 * (role-mapping.ts). All of it in one transaction under the users' lock, so two sign-ins of one
 * person at once create one user; what it changed commits even when the person ends up without
 * access.
 */
async function signInPerson(db: Db, provider: OidcProviderRow, claims: Record<string, unknown>): Promise<SignedInUser> {
  const issuer = String(claims.iss);
  const subject = String(claims.sub);
  const email = typeof claims.email === "string" && claims.email.includes("@") ? claims.email.trim().toLowerCase() : null;
  const emailVerified = claims.email_verified === true;
  const groups = groupsFromClaim(claims[provider.groupsClaim]);
  const actor = ssoActor(provider);
  const via = { provider: provider.name, issuer, subject };

  const outcome = await db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    await lockUserChanges(tx);
    let user: { id: string; email: string; instanceAdmin: boolean; disabled: boolean };
    let isNew = false;
    const known = await getIdentityUser(tx, { issuer, subject });
    if (known) {
      user = known;
      if (user.disabled) return { refused: new SsoSignInError("account_removed", `${user.email} was removed`, provider.id) };
      await touchIdentity(tx, { id: known.identityId, email });
    } else {
      if (!email) return { refused: new SsoSignInError("no_email", `${provider.name} sent no email for ${subject}`, provider.id) };
      const existing = await getUserByEmail(tx, { email });
      if (existing?.disabled) return { refused: new SsoSignInError("account_removed", `${email} was removed`, provider.id) };
      if (existing) {
        if (!provider.linkByEmail || !emailVerified) {
          const why = provider.linkByEmail ? "the provider did not say the email is verified" : "linking by email is off for this provider";
          return { refused: new SsoSignInError("link_refused", `${email} has an account: ${why}`, provider.id) };
        }
        await linkIdentity(tx, { userId: existing.id, issuer, subject, email });
        await logAudit(tx, { projectId: null, actor, action: "user.identity_link", entityType: "user", entityId: existing.id, after: { email: existing.email, ...via } });
        user = existing;
      } else {
        if (!provider.createUsers) return { refused: new SsoSignInError("no_account", `${email} has no account and ${provider.name} creates none`, provider.id) };
        user = await createUser(tx, { email, passwordHash: null });
        isNew = true;
        await linkIdentity(tx, { userId: user.id, issuer, subject, email });
        await logAudit(tx, { projectId: null, actor, action: "user.create", entityType: "user", entityId: user.id, after: { email: user.email, ...via, groups } });
      }
    }
    await syncProjectRoles(tx, provider, user, groups, isNew);
    // Hooks bound to a group (`group:<name>`) hold for the person's calls from their next one on:
    // every process forgets the credentials it read with the old groups.
    if (await setUserSsoGroups(tx, { id: user.id, groups })) await announceAccessChange(tx, { userId: user.id });
    const projects = await listMemberships(tx, { userId: user.id });
    return { user: { id: user.id, email: user.email, instanceAdmin: user.instanceAdmin, projects: projects.map((p) => ({ slug: p.slug, role: p.role })) } };
  });
  if ("refused" in outcome) throw outcome.refused!;
  const { user } = outcome;
  if (!user.instanceAdmin && user.projects.length === 0) throw new SsoSignInError("no_role", `${user.email} is in no project`, provider.id);
  return user;
}

/**
 * The roles the groups give the person now, project by project, stored (and audited in each
 * project) where they changed. A demotion ends their other sessions and closes their sockets
 * everywhere (setProjectRole). A mapping naming a project that was deleted since is skipped. The
 * groups may take a project's last admin member away: the project is then kept by the instance
 * admins (user-service.ts), whose flag single sign-on never changes.
 */
async function syncProjectRoles(tx: Db, provider: OidcProviderRow, user: { id: string; email: string }, groups: string[], isNew: boolean): Promise<void> {
  const actor = ssoActor(provider);
  for (const decision of projectRolesOnSignIn(provider, groups, isNew)) {
    const project = await getProjectBySlug(tx, { slug: decision.project });
    if (!project) {
      logger.warn({ provider: provider.name, project: decision.project }, "a single sign-on mapping names a project that does not exist; skipped");
      continue;
    }
    const from = (await getMemberRole(tx, { projectId: project.id, userId: user.id })) ?? null;
    await setProjectRole(tx, { actor, projectId: project.id, user, from, to: decision.role, note: { groups } });
  }
}
