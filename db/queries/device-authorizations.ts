/** Device authorizations of `hookplane login` (db/schema.ts deviceAuthorizations). */
import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "../client";
import { deviceAuthorizations } from "../schema";

export type DeviceAuthorizationRow = typeof deviceAuthorizations.$inferSelect;

export async function createDeviceAuthorization(db: Db, params: { deviceCodeHash: string; userCode: string; name: string; expiresAt: Date }) {
  const [row] = await db.insert(deviceAuthorizations).values(params).returning();
  return row;
}

/** A pending, unexpired authorization by the code the person typed. */
export async function findPendingByUserCode(db: Db, params: { userCode: string }) {
  const [row] = await db
    .select()
    .from(deviceAuthorizations)
    .where(and(eq(deviceAuthorizations.userCode, params.userCode), eq(deviceAuthorizations.status, "pending"), gt(deviceAuthorizations.expiresAt, sql`now()`)));
  return row;
}

/** The person's answer, once, while it is pending and unexpired (undefined otherwise). */
export async function decideDeviceAuthorization(db: Db, params: { userCode: string; approve: boolean; userId: string; projectId?: string }) {
  const [row] = await db
    .update(deviceAuthorizations)
    .set({ status: params.approve ? "approved" : "denied", userId: params.userId, projectId: params.projectId ?? null, decidedAt: new Date() })
    .where(and(eq(deviceAuthorizations.userCode, params.userCode), eq(deviceAuthorizations.status, "pending"), gt(deviceAuthorizations.expiresAt, sql`now()`)))
    .returning();
  return row;
}

/**
 * The authorization the polling device names, stamped as polled now; with the stamp before, so the
 * caller can tell a device that polls faster than it was told to.
 */
export async function pollDeviceAuthorization(db: Db, params: { deviceCodeHash: string }): Promise<(DeviceAuthorizationRow & { previousPoll: Date | null }) | undefined> {
  const [row] = await db
    .select()
    .from(deviceAuthorizations)
    .where(eq(deviceAuthorizations.deviceCodeHash, params.deviceCodeHash));
  if (!row) return undefined;
  await db.update(deviceAuthorizations).set({ lastPolledAt: new Date() }).where(eq(deviceAuthorizations.id, row.id));
  return { ...row, previousPoll: row.lastPolledAt };
}

/** Approved → redeemed, once: only the call that makes this change issues the credential. */
export async function redeemDeviceAuthorization(db: Db, params: { id: string }) {
  const [row] = await db
    .update(deviceAuthorizations)
    .set({ status: "redeemed" })
    .where(and(eq(deviceAuthorizations.id, params.id), eq(deviceAuthorizations.status, "approved")))
    .returning();
  return row;
}

export async function setDeviceToken(db: Db, params: { id: string; tokenId: string }) {
  await db.update(deviceAuthorizations).set({ tokenId: params.tokenId }).where(eq(deviceAuthorizations.id, params.id));
}

/** Authorizations long expired (a day past): removed as new ones start. */
export async function deleteStaleDeviceAuthorizations(db: Db) {
  await db.delete(deviceAuthorizations).where(lt(deviceAuthorizations.expiresAt, sql`now() - interval '1 day'`));
}
