import { asc, eq } from "drizzle-orm";
import type { Db } from "../client";
import { hookInvocations } from "../schema";

export type NewHookInvocation = typeof hookInvocations.$inferInsert;

/** One insert per dispatch: the ledger rows of every hook considered for one event. */
export async function insertHookInvocations(db: Db, params: { rows: NewHookInvocation[] }) {
  if (params.rows.length === 0) return;
  await db.insert(hookInvocations).values(params.rows);
}

export async function listRunHookInvocations(db: Db, params: { runId: string }) {
  return db.select().from(hookInvocations).where(eq(hookInvocations.runId, params.runId)).orderBy(asc(hookInvocations.id));
}
