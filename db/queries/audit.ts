import { and, desc, eq, gte, like, lt, lte, or, type SQL } from "drizzle-orm";
import type { Db } from "../client";
import { auditLog } from "../schema";
import { deleteChainDaysBefore } from "./hash-chain";

export interface AuditEntry {
  actor: string;
  action: string;
  entityType: string;
  entityId?: string;
  before?: unknown;
  after?: unknown;
}

/**
 * One call beside every mutation: who changed what, with the before and after values. The log is
 * append-only (rows go in unsealed; the sealer chains them) and nothing here updates or deletes.
 */
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

export interface AuditFilters {
  entityType?: string;
  entityId?: string;
  actor?: string;
  /** An exact action (`hook.update`) or its namespace (`hook` matches every `hook.*`). */
  action?: string;
  from?: Date;
  to?: Date;
}

/** Newest first; the cursor is the last row's id. */
export async function listAudit(db: Db, params: AuditFilters & { beforeId?: number; limit: number }) {
  const where: SQL[] = [];
  if (params.entityType) where.push(eq(auditLog.entityType, params.entityType));
  if (params.entityId) where.push(eq(auditLog.entityId, params.entityId));
  if (params.actor) where.push(eq(auditLog.actor, params.actor));
  if (params.action) {
    const namespace = `${params.action.replace(/[\\%_]/g, (c) => `\\${c}`)}.%`;
    where.push(or(eq(auditLog.action, params.action), like(auditLog.action, namespace))!);
  }
  if (params.from) where.push(gte(auditLog.createdAt, params.from));
  if (params.to) where.push(lte(auditLog.createdAt, params.to));
  if (params.beforeId) where.push(lt(auditLog.id, params.beforeId));
  return db
    .select()
    .from(auditLog)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(params.limit);
}

/** Retention: the audit log's whole UTC days before `before`, oldest first, keeping the chain verifiable. */
export async function deleteAuditDaysBefore(db: Db, params: { before: Date }) {
  return deleteChainDaysBefore(db, { table: "audit_log", before: params.before });
}
