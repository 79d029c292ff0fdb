/**
 * The sliding windows of `limit` hooks (rate_limit_hits): a key's calls are counted and a new one
 * added under a transaction-scoped advisory lock on the key, so web processes on one PostgreSQL
 * never let through more than `max` between them. Each statement after the lock sees what the
 * others committed (READ COMMITTED), and the clock is read after the lock, not at the start.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../client";

export async function takeRateLimit(db: Db, params: { projectId: string; key: string; max: number; windowMs: number }): Promise<{ allowed: boolean; count: number }> {
  return db.transaction(async (transaction) => {
    const tx = transaction as unknown as Db;
    const lock = `rate-limit:${params.projectId}:${params.key}`;
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`);
    const window = sql`clock_timestamp() - ${params.windowMs} * interval '1 millisecond'`;
    // What fell out of the window goes as the key is counted: the table holds at most `max` a key.
    await tx.execute(sql`delete from rate_limit_hits where project_id = ${params.projectId} and key = ${params.key} and at <= ${window}`);
    const [{ count }] = await queryRows<{ count: number }>(
      tx,
      sql`select count(*)::integer as count from rate_limit_hits where project_id = ${params.projectId} and key = ${params.key} and at > ${window}`,
    );
    if (count >= params.max) return { allowed: false, count };
    await tx.execute(sql`insert into rate_limit_hits (project_id, key, at) values (${params.projectId}, ${params.key}, clock_timestamp())`);
    return { allowed: true, count: count + 1 };
  });
}
