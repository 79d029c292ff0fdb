"use server";

import { bridgeCredentialRequestSchema, issueBridgeCredential, revokeOwnBridgeCredential } from "@/lib/platform/auth/bridge-credentials";
import { z } from "zod";
import { AppError } from "@/lib/platform/api/app-error";
import { formAction } from "@/lib/platform/api/action";
import { issueProjectToken, revokeApiTokenAudited, tokenRequestSchema } from "@/lib/platform/auth/account-service";
import { createProjectAudited, deleteProjectAudited, projectCreateSchema, projectPatchSchema, renameProjectAudited } from "@/lib/platform/auth/project-service";
import { projectSlugSchema } from "@/lib/platform/auth/project-slug";
import { grantSelfGovernanceAudited, revokeSelfGovernanceAudited } from "@/lib/platform/auth/own-governance";
import {
  createServiceAccountAudited,
  deleteServiceAccountAudited,
  issueServiceCredential,
  serviceAccountRequestSchema,
  serviceCredentialRequestSchema,
} from "@/lib/platform/auth/service-accounts";
import {
  addMemberAudited,
  changeMemberRoleAudited,
  createAccountAudited,
  instanceAdminChangeSchema,
  memberRoleSchema,
  newAccountSchema,
  newMemberSchema,
  removeMemberAudited,
  removeUserAudited,
  setInstanceAdminAudited,
  setUserSlackIdAudited,
  slackIdChangeSchema,
} from "@/lib/platform/auth/user-service";

const REVALIDATE = ["/settings", "/settings/credentials", "/settings/instance"];
/** The switcher in the layout lists projects: a project change shows on every page. */
const REVALIDATE_ALL = ["/", "/settings", "/settings/credentials", "/settings/instance"];

type Raw = FormData | Record<string, unknown>;
const fieldsOf = (raw: Raw): Record<string, unknown> => (raw instanceof FormData ? Object.fromEntries(raw.entries()) : raw);

// Tokens of the current project (its admins).

export const createTokenAction = formAction({ role: "admin", input: tokenRequestSchema, revalidate: REVALIDATE }, async ({ db, principal, input }) => {
  const { token } = await issueProjectToken(db, principal, input);
  return { ok: true, secret: token, message: `Token created in ${principal.projectSlug}. Copy it now: it is not shown again.` };
});

export const revokeTokenAction = formAction(
  { role: "admin", input: z.object({ id: z.uuid("Unknown token") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    // Revoked already, or a token of another project: nothing of this project to revoke.
    const revoked = await revokeApiTokenAudited(db, principal, { id: input.id });
    if (!revoked) throw AppError.notFound("Active token of this project");
    return { ok: true, message: "Token revoked" };
  },
);

// A person's own bridge credentials (any member).

export const createBridgeCredentialAction = formAction(
  { role: "viewer", input: bridgeCredentialRequestSchema, revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const { token } = await issueBridgeCredential(db, principal, input);
    return { ok: true, secret: token, message: `Bridge credential created in ${principal.projectSlug}. Copy it now: it is not shown again.` };
  },
);

export const revokeBridgeCredentialAction = formAction(
  { role: "viewer", input: z.object({ id: z.uuid("Unknown credential") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    if (!(await revokeOwnBridgeCredential(db, principal, { id: input.id }))) throw AppError.notFound("Active bridge credential of yours");
    return { ok: true, message: "Bridge credential revoked" };
  },
);

// Service accounts of the current project (its admins): CI and scheduled jobs, named on the record.

export const createServiceAccountAction = formAction(
  { role: "admin", input: serviceAccountRequestSchema, revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const account = await createServiceAccountAudited(db, principal, input);
    return { ok: true, message: `Service account ${account.name} created. Give it a credential below.` };
  },
);

export const issueServiceCredentialAction = formAction(
  { role: "admin", input: serviceCredentialRequestSchema.extend({ accountId: z.uuid("Pick a service account") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const { accountId, ...credential } = input;
    const { token, serviceAccount } = await issueServiceCredential(db, principal, { id: accountId }, credential);
    return { ok: true, secret: token, message: `${credential.kind === "bridge" ? "Bridge credential" : "API token"} of ${serviceAccount.name} created. Copy it now: it is not shown again.` };
  },
);

export const deleteServiceAccountAction = formAction(
  { role: "admin", input: z.object({ id: z.uuid("Unknown service account") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const gone = await deleteServiceAccountAudited(db, principal, { id: input.id });
    return { ok: true, message: `Service account ${gone.name} deleted; its tokens stop working on their next call` };
  },
);

// Who may change the rules over their own coding agents (another admin grants it).

export const grantSelfGovernanceAction = formAction(
  { role: "admin", input: z.object({ userId: z.uuid("Unknown person") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    await grantSelfGovernanceAudited(db, principal, { userId: input.userId });
    return { ok: true, message: "Granted: they may change the rules over their own coding agents in this project" };
  },
);

export const revokeSelfGovernanceAction = formAction(
  { role: "admin", input: z.object({ userId: z.uuid("Unknown person") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    await revokeSelfGovernanceAudited(db, principal, { userId: input.userId });
    return { ok: true, message: "Revoked" };
  },
);

// Members of the current project (its admins).

export const addMemberAction = formAction(
  {
    role: "admin",
    input: newMemberSchema,
    revalidate: REVALIDATE,
    // An empty password: add an existing account.
    read: (raw) => {
      const { password, ...rest } = fieldsOf(raw);
      return { ...rest, ...(typeof password === "string" && password !== "" && { password }) };
    },
  },
  async ({ db, principal, input }) => {
    const member = await addMemberAudited(db, principal, { projectId: principal.projectId }, input);
    return { ok: true, message: `${member.email} is ${member.role} in ${principal.projectSlug}` };
  },
);

export const changeMemberRoleAction = formAction(
  { role: "admin", input: memberRoleSchema.extend({ userId: z.uuid("unknown person") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    const member = await changeMemberRoleAudited(db, principal, { projectId: principal.projectId, userId: input.userId, role: input.role });
    return { ok: true, message: `${member.email} is now ${member.role} in ${principal.projectSlug}` };
  },
);

export const removeMemberAction = formAction(
  { role: "admin", input: z.object({ userId: z.uuid("unknown person") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    await removeMemberAudited(db, principal, { projectId: principal.projectId, userId: input.userId });
    return { ok: true, message: `Removed from ${principal.projectSlug}` };
  },
);

// Accounts (instance admins).

export const createAccountAction = formAction(
  {
    role: "instance",
    input: newAccountSchema,
    revalidate: REVALIDATE,
    read: (raw) => {
      const { email, password, instanceAdmin } = fieldsOf(raw);
      return { email, password, instanceAdmin: instanceAdmin === "on" };
    },
  },
  async ({ db, principal, input }) => {
    await createAccountAudited(db, principal, input);
    return { ok: true, message: `Added ${input.email}${input.instanceAdmin ? " as an instance admin" : ": add them to a project under Members"}` };
  },
);

export const setInstanceAdminAction = formAction(
  {
    role: "instance",
    input: instanceAdminChangeSchema,
    revalidate: REVALIDATE_ALL,
    read: (raw) => {
      const { id, instanceAdmin } = fieldsOf(raw);
      return { id, instanceAdmin: instanceAdmin === "true" };
    },
  },
  async ({ db, principal, input }) => {
    const user = await setInstanceAdminAudited(db, principal, input);
    return { ok: true, message: user.instanceAdmin ? `${user.email} is an instance admin` : `${user.email} is no longer an instance admin` };
  },
);

export const removeUserAction = formAction(
  { role: "instance", input: z.object({ id: z.uuid("unknown person") }), revalidate: REVALIDATE },
  async ({ db, principal, input }) => {
    await removeUserAudited(db, principal, { id: input.id });
    return { ok: true, message: "Account removed: its sessions ended and its tokens were revoked" };
  },
);

export const setUserSlackIdAction = formAction(
  {
    role: "instance",
    input: slackIdChangeSchema,
    revalidate: REVALIDATE,
    // An empty field unlinks.
    read: (raw) => {
      const fields = fieldsOf(raw);
      const slackUserId = typeof fields.slackUserId === "string" && fields.slackUserId.trim() !== "" ? fields.slackUserId : null;
      return { id: fields.id, slackUserId };
    },
  },
  async ({ db, principal, input }) => {
    const user = await setUserSlackIdAudited(db, principal, input);
    return { ok: true, message: user.slackUserId ? `${user.email} is Slack member ${user.slackUserId}` : `${user.email} has no Slack account linked` };
  },
);

// Projects (instance admins).

export const createProjectAction = formAction(
  {
    role: "instance",
    input: projectCreateSchema,
    revalidate: REVALIDATE_ALL,
    read: (raw) => {
      const { slug, name } = fieldsOf(raw);
      return { slug, ...(typeof name === "string" && name.trim() !== "" && { name }) };
    },
  },
  async ({ db, principal, input }) => {
    const project = await createProjectAudited(db, principal, input);
    return { ok: true, message: `Project ${project.slug} created: switch to it to add its members` };
  },
);

export const renameProjectAction = formAction(
  { role: "instance", input: projectPatchSchema.extend({ slug: projectSlugSchema }), revalidate: REVALIDATE_ALL },
  async ({ db, principal, input }) => {
    const project = await renameProjectAudited(db, principal, input.slug, { name: input.name });
    return { ok: true, message: `${project.slug} is now named ${project.name}` };
  },
);

export const deleteProjectAction = formAction(
  { role: "instance", input: z.object({ slug: projectSlugSchema }), revalidate: REVALIDATE_ALL },
  async ({ db, principal, input }) => {
    await deleteProjectAudited(db, principal, input.slug);
    return { ok: true, message: `Project ${input.slug} deleted, with everything in it` };
  },
);
