/**
 * Service accounts: who acts when no person does (a CI pipeline's coding agent, a scheduled job).
 * A project's admins make one, issue it tokens (a bridge credential for a coding agent in CI, or an
 * API token with a role for a script), and delete it, which ends its tokens at once. Every record of
 * what its tokens did names the account (`service:<name>`), and hooks can tell it apart
 * (`when: "actor.service: deploy-bot"`), so CI is governed and audited like a person, not as an
 * anonymous token.
 */
import { z } from "zod";
import type { Db } from "@/db/client";
import { announceAccessChange } from "@/db/queries/access-changes";
import { createApiToken } from "@/db/queries/api-tokens";
import { audited } from "@/db/queries/audit";
import { createServiceAccount, deleteServiceAccount, getServiceAccount, listServiceAccounts } from "@/db/queries/service-accounts";
import { AppError } from "@/lib/platform/api/app-error";
import type { Principal } from "./roles";
import { hashSecretToken, newSecretToken } from "./secret-token";

export const serviceAccountRequestSchema = z.object({
  /** What records and hook conditions name it: lower-case words joined by dashes. */
  name: z
    .string()
    .trim()
    .min(2, "name the service account (e.g. ci-deploy)")
    .max(64)
    .regex(/^[a-z0-9][a-z0-9._-]*$/, "lower-case letters, digits, dots, dashes and underscores, starting with a letter or digit"),
  description: z.string().trim().max(500).default(""),
});

export const serviceCredentialRequestSchema = z.object({
  /** Where it is used ("github-actions", "nightly-report"). */
  name: z.string().trim().min(1, "name the credential (where it is used)").max(100),
  /** `bridge`: a coding agent's hook events only; `api`: the API with `role`. */
  kind: z.enum(["bridge", "api"]),
  /** For an API token: viewer or operator. Changing the project's configuration stays a person's act. */
  role: z.enum(["viewer", "operator"]).default("viewer"),
});

export async function listProjectServiceAccounts(db: Db, principal: Principal) {
  return listServiceAccounts(db, { projectId: principal.projectId });
}

export async function createServiceAccountAudited(db: Db, principal: Principal, input: z.infer<typeof serviceAccountRequestSchema>) {
  return audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "service_account.create", entityType: "service_account" },
    async (tx) => {
      const row = await createServiceAccount(tx, { projectId: principal.projectId, name: input.name, description: input.description, createdBy: principal.label });
      if (!row) throw AppError.conflict(`A service account named ${input.name} already exists in this project`);
      return row;
    },
    (row) => ({ entityId: row.id, after: row }),
  );
}

/** Deletes it; its tokens go with it and are refused on their next call, in every process. */
export async function deleteServiceAccountAudited(db: Db, principal: Principal, params: { id: string }) {
  return audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: "service_account.delete", entityType: "service_account", entityId: params.id },
    async (tx) => {
      const row = await deleteServiceAccount(tx, { projectId: principal.projectId, id: params.id });
      if (!row) throw AppError.notFound("Service account");
      for (const tokenId of row.tokenIds) await announceAccessChange(tx, { tokenId });
      return row;
    },
    ({ tokenIds: _ids, ...row }) => ({ before: row }),
  );
}

/** A token of the account; the secret is shown once. */
export async function issueServiceCredential(db: Db, principal: Principal, params: { id: string }, input: z.infer<typeof serviceCredentialRequestSchema>) {
  const account = await getServiceAccount(db, { projectId: principal.projectId, id: params.id });
  if (!account) throw AppError.notFound("Service account");
  const token = newSecretToken(input.kind === "bridge" ? "hpb_" : "hp_");
  const row = await audited(
    db,
    { projectId: principal.projectId, actor: principal.label, action: input.kind === "bridge" ? "bridge_credential.create" : "token.create", entityType: "api_token" },
    (tx) =>
      createApiToken(tx, {
        projectId: principal.projectId,
        name: input.name,
        // A bridge credential reaches the ingest endpoints only, whatever its role (roles.ts).
        role: input.kind === "bridge" ? "viewer" : input.role,
        kind: input.kind,
        serviceAccountId: account.id,
        tokenHash: hashSecretToken(token),
        prefix: token.slice(0, input.kind === "bridge" ? 11 : 10),
      }),
    (row) => ({ entityId: row.id, after: { ...row, serviceAccount: account.name } }),
  );
  return { token, ...row, serviceAccount: { id: account.id, name: account.name } };
}
