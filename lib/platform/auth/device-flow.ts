/**
 * `hookplane login`: the OAuth 2.0 device authorization grant (RFC 8628) against Hookplane itself.
 * The CLI asks for a code pair; the person opens /device signed in (password or single sign-on),
 * checks the code and the machine's name, picks the project and approves; the CLI's next poll
 * receives a bridge credential of theirs, exactly once. Nothing secret is shown in the browser:
 * the credential only ever goes to the machine that holds the device code.
 *
 * Error codes are RFC 8628's (`authorization_pending`, `slow_down`, `access_denied`,
 * `expired_token`), in Hookplane's error shape.
 */
import { createHash, randomBytes, randomInt } from "node:crypto";
import { z } from "zod";
import type { Db } from "@/db/client";
import {
  createDeviceAuthorization,
  decideDeviceAuthorization,
  deleteStaleDeviceAuthorizations,
  findPendingByUserCode,
  pollDeviceAuthorization,
  redeemDeviceAuthorization,
  setDeviceToken,
} from "@/db/queries/device-authorizations";
import { getMemberRole, getProjectById } from "@/db/queries/projects";
import { getUserById } from "@/db/queries/users";
import { AppError } from "@/lib/platform/api/app-error";
import { issueBridgeCredentialFor } from "./bridge-credentials";
import type { Principal } from "./roles";

export const DEVICE_CODE_TTL_MS = 10 * 60_000;
/** Seconds between polls the CLI is told to keep (RFC 8628 `interval`). */
export const POLL_INTERVAL_S = 2;
/** Letters a person reads and types without mistakes (no vowels: no words; no 0/O, 1/I). */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";

export const deviceCodeRequestSchema = z.object({
  /** The machine, as `hookplane login` names it (its host name by default). */
  name: z.string().trim().min(1).max(100).default("a machine"),
});

export const deviceTokenRequestSchema = z.object({ deviceCode: z.string().min(20).max(200) });

export const deviceDecisionSchema = z.object({
  userCode: z
    .string()
    .transform((code) => normalizeUserCode(code))
    .refine((code) => code.length === 8, "enter the 8 letters the terminal shows"),
  decision: z.enum(["approve", "deny"]),
  project: z.uuid("pick a project").optional(),
});

/** `bcdf-ghjk`, `BCDF GHJK` → `BCDFGHJK`. */
export function normalizeUserCode(code: string): string {
  return code.toUpperCase().replace(/[^A-Z]/g, "");
}

/** `BCDFGHJK` → `BCDF-GHJK`, as shown. */
export function formatUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

function hashDeviceCode(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

export async function startDeviceAuthorization(db: Db, input: z.infer<typeof deviceCodeRequestSchema>, publicUrl: string) {
  await deleteStaleDeviceAuthorizations(db);
  const deviceCode = randomBytes(32).toString("base64url");
  const userCode = Array.from({ length: 8 }, () => USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)]).join("");
  await createDeviceAuthorization(db, { deviceCodeHash: hashDeviceCode(deviceCode), userCode, name: input.name, expiresAt: new Date(Date.now() + DEVICE_CODE_TTL_MS) });
  const verification = `${publicUrl.replace(/\/+$/, "")}/device`;
  return {
    deviceCode,
    userCode: formatUserCode(userCode),
    verificationUri: verification,
    verificationUriComplete: `${verification}?code=${formatUserCode(userCode)}`,
    expiresIn: DEVICE_CODE_TTL_MS / 1000,
    interval: POLL_INTERVAL_S,
  };
}

/** What /device shows for a code the person typed: the machine asking, or nothing (unknown, used, expired). */
export async function describePendingDevice(db: Db, userCode: string) {
  const row = await findPendingByUserCode(db, { userCode: normalizeUserCode(userCode) });
  return row && { name: row.name, createdAt: row.createdAt, expiresAt: row.expiresAt };
}

/** The signed-in person's answer to a code; approving names the project the credential acts in. */
export async function decideDevice(db: Db, principal: Principal, input: z.infer<typeof deviceDecisionSchema>) {
  if (principal.kind !== "user" || !principal.userId) throw AppError.forbidden("Sign in as yourself to approve a machine");
  const projectId = input.project ?? principal.projectId;
  if (input.decision === "approve" && !principal.instanceAdmin && !(await getMemberRole(db, { projectId, userId: principal.userId }))) {
    throw AppError.forbidden("You are not a member of that project");
  }
  const row = await decideDeviceAuthorization(db, { userCode: input.userCode, approve: input.decision === "approve", userId: principal.userId, projectId });
  if (!row) throw AppError.notFound("A pending code like this (it may have expired or been used)");
  return { name: row.name, decision: input.decision, project: (await getProjectById(db, { id: projectId }))?.slug };
}

/** The device's poll: the credential once the person approved (once only), or why not yet. */
export async function redeemDeviceCode(db: Db, input: z.infer<typeof deviceTokenRequestSchema>) {
  const row = await pollDeviceAuthorization(db, { deviceCodeHash: hashDeviceCode(input.deviceCode) });
  if (!row) throw new AppError("invalid_grant", "Unknown device code: start again with hookplane login");
  if (row.status === "redeemed") throw new AppError("invalid_grant", "This device code was used already: start again with hookplane login");
  if (row.status === "denied") throw new AppError("access_denied", "The person denied this login");
  if (row.expiresAt.getTime() <= Date.now()) throw new AppError("expired_token", "The code expired: start again with hookplane login");
  if (row.status === "pending") {
    if (row.previousPoll && Date.now() - row.previousPoll.getTime() < POLL_INTERVAL_S * 1000 * 0.5) throw new AppError("slow_down", `Poll every ${POLL_INTERVAL_S} s`);
    throw new AppError("authorization_pending", "Waiting for the person to approve the code");
  }
  // Approved: this call alone turns it into a credential.
  const redeemed = await redeemDeviceAuthorization(db, { id: row.id });
  if (!redeemed?.userId || !redeemed.projectId) throw new AppError("invalid_grant", "This device code was used already: start again with hookplane login");
  const user = await getUserById(db, { id: redeemed.userId });
  // Still theirs to have: a person removed meanwhile gets nothing.
  if (!user || user.disabled || (!user.instanceAdmin && !(await getMemberRole(db, { projectId: redeemed.projectId, userId: user.id })))) {
    throw new AppError("access_denied", "The person who approved is no longer a member of that project");
  }
  const credential = await issueBridgeCredentialFor(db, { userId: user.id, projectId: redeemed.projectId, name: redeemed.name, actor: user.email });
  await setDeviceToken(db, { id: redeemed.id, tokenId: credential.id });
  const project = await getProjectById(db, { id: redeemed.projectId });
  return { token: credential.token, credentialId: credential.id, email: user.email, project: project?.slug };
}
