/**
 * Bridge credentials: what a person's coding agents (Claude Code, Codex, Gemini CLI, Copilot,
 * Cursor through `hookplane hook ...`) send their hook events with. One acts as its person and
 * reaches the ingest endpoints only (roles.ts): with it an agent cannot read other people's runs,
 * edit or delete the hooks that govern it, or decide an approval it waits on. Any member of a
 * project makes their own; they and the project's admins revoke them; a person removed from the
 * project (or demoted to nothing) is refused at once (principal.ts reads the owner's membership).
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { createApiToken, getActiveToken, listApiTokens, revokeApiToken, revokeOwnToken } from "@/db/queries/api-tokens";
import { audited } from "@/db/queries/audit";
import { AppError } from "@/lib/platform/api/app-error";
import type { Principal } from "./roles";
import { hashSecretToken, newSecretToken } from "./secret-token";

export const bridgeCredentialRequestSchema = z.object({
  /** Where it is used ("laptop", "ci-runner-3"): shown in the list. */
  name: z.string().trim().min(1, "name the credential (the machine it is for)").max(100),
});

function requirePerson(principal: Principal): string {
  if (!principal.userId) {
    throw AppError.forbidden("A bridge credential is a person's: sign in as that person to make or list yours");
  }
  return principal.userId;
}

/** A bridge credential of the signed-in person in the request's project; the secret is shown once. */
export async function issueBridgeCredential(db: Db, principal: Principal, input: z.infer<typeof bridgeCredentialRequestSchema>) {
  return issueBridgeCredentialFor(db, { userId: requirePerson(principal), projectId: principal.projectId, name: input.name, actor: principal.label });
}

/**
 * A bridge credential of `userId` in `projectId` (the caller checked they may have one there):
 * here and for `hookplane login` once the person approved it (device-flow.ts).
 */
export async function issueBridgeCredentialFor(db: Db, params: { userId: string; projectId: string; name: string; actor: string }) {
  const token = newSecretToken("hpb_");
  const row = await audited(
    db,
    { projectId: params.projectId, actor: params.actor, action: "bridge_credential.create", entityType: "api_token" },
    // Its stored role is the least: a bridge credential acts with its person's current role in their hooks' conditions, and reaches nothing by it.
    (tx) => createApiToken(tx, { projectId: params.projectId, name: params.name, role: "viewer", kind: "bridge", userId: params.userId, tokenHash: hashSecretToken(token), prefix: token.slice(0, 11) }),
    (row) => ({ entityId: row.id, after: row }),
  );
  return { token, ...row };
}

export const revokeBySecretSchema = z.object({ token: z.string().min(1).max(500) });

/**
 * Revokes the token whose secret is given (`hookplane logout`): holding the secret is the right to
 * end it, whatever its kind, so this needs no other credential. Unknown or already revoked: false.
 */
export async function revokeBySecret(db: Db, input: z.infer<typeof revokeBySecretSchema>): Promise<boolean> {
  const row = await getActiveToken(db, { tokenHash: hashSecretToken(input.token) });
  if (!row) return false;
  const revoked = await audited(
    db,
    { projectId: row.projectId, actor: row.kind === "bridge" && row.ownerEmail ? row.ownerEmail : `token:${row.name}`, action: "token.revoke", entityType: "api_token", entityId: row.id },
    async (tx) => {
      const done = await revokeApiToken(tx, { projectId: row.projectId, id: row.id });
      if (done) await announceAccessChange(tx, { tokenId: done.id });
      return done;
    },
    (done) => (done ? {} : null),
  );
  return Boolean(revoked);
}

/** The signed-in person's bridge credentials in the request's project. */
export async function listOwnBridgeCredentials(db: Db, principal: Principal) {
  return listApiTokens(db, { projectId: principal.projectId, kind: "bridge", userId: requirePerson(principal) });
}

/** Revokes one of the signed-in person's bridge credentials (an admin revokes anyone's through DELETE /api/v1/tokens/{id}). */
export async function revokeOwnBridgeCredential(db: Db, principal: Principal, params: { id: string }) {
  const userId = requirePerson(principal);
  return audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "bridge_credential.revoke", entityType: "api_token", entityId: params.id },
    async (tx) => {
      const row = await revokeOwnToken(tx, { projectId: principal.projectId, id: params.id, userId, kind: "bridge" });
      if (row) await announceAccessChange(tx, { tokenId: row.id });
      return row;
    },
    (row) => (row ? {} : null),
  );
}
