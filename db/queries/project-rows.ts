import { and, eq, type SQL } from "drizzle-orm";
import type { AnyPgColumn, PgTable } from "drizzle-orm/pg-core";
import type { Db } from "../client";

/** A table whose rows each belong to one project. */
type ProjectTable = PgTable & { projectId: AnyPgColumn };

/**
 * The one row of `projectId` that `key` names (its id, its name): every lookup names the project,
 * so another project's row is not found (the caller answers 404, as for one that does not exist).
 */
export async function findInProject<T extends ProjectTable>(db: Db, table: T, projectId: string, key: SQL): Promise<T["$inferSelect"] | undefined> {
  const [row] = await db
    .select()
    .from(table as PgTable)
    .where(and(eq(table.projectId, projectId), key));
  return row as T["$inferSelect"] | undefined;
}

/** Deletes the row of `projectId` that `key` names; the row deleted, or undefined where there was none in that project. */
export async function deleteInProject<T extends ProjectTable>(db: Db, table: T, projectId: string, key: SQL): Promise<T["$inferSelect"] | undefined> {
  const [row] = await db
    .delete(table as PgTable)
    .where(and(eq(table.projectId, projectId), key))
    .returning();
  return row as T["$inferSelect"] | undefined;
}
