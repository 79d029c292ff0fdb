import { and, desc, eq, lt, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { auditLog } from "../schema";

export interface AuditEntry {
  actor: string;
  action: string;
  entityType: string;
  entityId?: string;
  before?: unknown;
  after?: unknown;
}

/** One call beside every mutation: who changed what, with the before and after values. */
export async function logAudit(db: Db, entry: AuditEntry) {
  await db.insert(auditLog).values({
    actor: entry.actor,
    action: entry.action,
    entityType: entry.entityType,
    entityId: entry.entityId,
    before: entry.before ?? null,
    after: entry.after ?? null,
  });
}

export async function listAudit(
  db: Db,
  params: { entityType?: string; entityId?: string; beforeId?: number; limit: number },
) {
  const where: SQL[] = [];
  if (params.entityType) where.push(eq(auditLog.entityType, params.entityType));
  if (params.entityId) where.push(eq(auditLog.entityId, params.entityId));
  if (params.beforeId) where.push(lt(auditLog.id, params.beforeId));
  return db
    .select()
    .from(auditLog)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(params.limit);
}
