import { and, desc, eq, gte, isNull, like, lt, lte, or, type SQL } from "drizzle-orm";
import { columnsOf } from "@/lib/core/null-fields";
import type { Db } from "../client";
import { auditLog } from "../schema";
import { deleteChainDaysBefore } from "./chain-retention";
import { likeLiteral } from "./like-pattern";

export interface AuditEntry {
  /** The project the change was made in; null: the instance's own (people, projects, providers, instance settings). */
  projectId: string | null;
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
  await db.insert(auditLog).values(columnsOf(entry, ["projectId", "actor", "action", "entityType", "entityId", "before", "after"]));
}

/**
 * Runs `change` and writes its audit row in ONE transaction: both commit or neither does, so a
 * request that fails half-way leaves no record without its audit row and no audit row without
 * its record. What only the change knows (the new row's id, the before and after values) comes
 * from `detail(result)`; `detail` returning null writes no row (the change was a no-op).
 * Everything `change` reads or writes must go through `tx` (PGlite has one connection: the outer
 * handle would wait on the transaction); effects outside the database (queue jobs) come after.
 */
export async function audited<T>(
  db: Db,
  entry: Pick<AuditEntry, "projectId" | "actor" | "action" | "entityType"> & Partial<AuditEntry>,
  change: (tx: Db) => Promise<T>,
  detail?: (result: T) => Partial<AuditEntry> | null,
): Promise<T> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const result = await change(tx);
    const more = detail ? detail(result) : {};
    if (more) await logAudit(tx, { ...entry, ...more });
    return result;
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

/**
 * One project's entries (`projectId` null: the instance-level ones), newest first; the cursor is
 * the last row's id.
 */
export async function listAudit(db: Db, params: AuditFilters & { projectId: string | null; beforeId?: number; limit: number }) {
  const where: SQL[] = [params.projectId === null ? isNull(auditLog.projectId) : eq(auditLog.projectId, params.projectId)];
  if (params.entityType) where.push(eq(auditLog.entityType, params.entityType));
  if (params.entityId) where.push(eq(auditLog.entityId, params.entityId));
  if (params.actor) where.push(eq(auditLog.actor, params.actor));
  if (params.action) {
    const namespace = `${likeLiteral(params.action)}.%`;
    where.push(or(eq(auditLog.action, params.action), like(auditLog.action, namespace))!);
  }
  if (params.from) where.push(gte(auditLog.createdAt, params.from));
  if (params.to) where.push(lte(auditLog.createdAt, params.to));
  if (params.beforeId) where.push(lt(auditLog.id, params.beforeId));
  return db
    .select()
    .from(auditLog)
    .where(and(...where))
    .orderBy(desc(auditLog.id))
    .limit(params.limit);
}

/** Retention: the audit log's whole UTC days before `before`, oldest first, keeping the chain verifiable. */
export async function deleteAuditDaysBefore(db: Db, params: { before: Date }) {
  return deleteChainDaysBefore(db, { table: "audit_log", before: params.before });
}
