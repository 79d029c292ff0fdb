/**
 * Single sign-on, from the button to the session:
 *
 * 1. `startSsoSignIn`: the provider's authorization URL (code flow, PKCE S256, state, nonce) and
 *    the sealed flow cookie that must come back with the answer (sign-in-flow.ts).
 * 2. `completeSsoSignIn`: the answer checked against that cookie, the code redeemed and the ID
 *    token validated by openid-client, then the person found or created and their role synced
 *    from the groups claim, and the same kind of session a password opens.
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
import { countAdmins, createUser, getUserByEmail } from "@/db/queries/users";
import type { Role } from "@/db/schema";
import { openSession } from "@/lib/platform/auth/account-service";
import { safeRedirectPath } from "@/lib/platform/auth/redirect-target";
import { lockUserChanges, setUserRole } from "@/lib/platform/auth/user-service";
import { logger } from "@/lib/platform/logger";
import type { SecretBox } from "@/lib/features/secrets/secret-box";
import { authorizationRequest, isUnreachable, providerConfiguration, redeemAuthorizationCode } from "./oidc-client";
import { groupsFromClaim, roleForNewUser, roleOnSignIn } from "./role-mapping";
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
    next: safeRedirectPath(params.next, "/agents"),
    expiresAt: Date.now() + FLOW_TTL_MS,
  });
  return { redirectTo: request.url, flowCookie };
}

interface SignedInUser {
  id: string;
  email: string;
  role: Role;
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
  return { sessionToken, next: flow.next, user };
}

/**
 * The Hookplane user behind validated claims: found by issuer and `sub`, linked by verified
 * email when allowed, or created; the role synced from the groups claim (role-mapping.ts). All of
 * it in one transaction under the users' lock, so two sign-ins of one person at once create one
 * user; what it changed commits even when the person ends up without access.
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
    let user: { id: string; email: string; role: Role | null; disabled: boolean };
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
        await logAudit(tx, { actor, action: "user.identity_link", entityType: "user", entityId: existing.id, after: { email: existing.email, ...via } });
        user = existing;
      } else {
        if (!provider.createUsers) return { refused: new SsoSignInError("no_account", `${email} has no account and ${provider.name} creates none`, provider.id) };
        const role = roleForNewUser(provider, groups);
        const created = await createUser(tx, { email, passwordHash: null, role });
        await linkIdentity(tx, { userId: created.id, issuer, subject, email });
        await logAudit(tx, { actor, action: "user.create", entityType: "user", entityId: created.id, after: { email: created.email, role, ...via, groups } });
        return { user: { id: created.id, email: created.email, role } };
      }
    }
    return { user: { id: user.id, email: user.email, role: await syncRole(tx, provider, user, groups) } };
  });
  if ("refused" in outcome) throw outcome.refused!;
  const { user } = outcome;
  if (!user.role) throw new SsoSignInError("no_role", `${user.email} has no role`, provider.id);
  return { ...user, role: user.role };
}

/**
 * The role the groups give an existing person now, stored (and audited) when it changed. A
 * demotion ends their other sessions and closes their sockets everywhere (setUserRole). The last
 * admin keeps the role, so a groups change at the provider cannot leave Hookplane without one;
 * that is audited as `user.role_kept`.
 */
async function syncRole(tx: Db, provider: OidcProviderRow, user: { id: string; email: string; role: Role | null }, groups: string[]): Promise<Role | null> {
  const role = roleOnSignIn(provider, groups, user.role);
  if (role === user.role) return role;
  const actor = ssoActor(provider);
  if (user.role === "admin" && (await countAdmins(tx)) <= 1) {
    await logAudit(tx, { actor, action: "user.role_kept", entityType: "user", entityId: user.id, before: { email: user.email, role: user.role }, after: { email: user.email, role: user.role, wanted: role, reason: "the last admin", groups } });
    logger.warn({ user: user.email, wanted: role }, "single sign-on would demote the last admin; the admin role is kept");
    return user.role;
  }
  await setUserRole(tx, { actor, user, role, note: { groups } });
  return role;
}
