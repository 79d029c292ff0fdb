/**
 * The sliding windows of `limit` hooks (rate_limit_buckets), taken through `hp_take_rate_limit`
 * (drizzle/0028): under a transaction-scoped advisory lock on the key, the window's buckets (a 60th
 * of the window each, at least 1 s) are summed and the call added to the current one, so web
 * processes on one PostgreSQL never let through more than `max` in any window between them, at a
 * cost that does not grow with `max`. One statement of fixed text a call (prepared once per connection).
 */
import { executeStatement, type Db } from "../client";

const TAKE = "select allowed, count from hp_take_rate_limit($1::uuid, $2::text, $3::integer, $4::bigint)";

export async function takeRateLimit(db: Db, params: { projectId: string; key: string; max: number; windowMs: number }): Promise<{ allowed: boolean; count: number }> {
  const [row] = await executeStatement<{ allowed: boolean; count: number }>(db, TAKE, [params.projectId, params.key, params.max, params.windowMs]);
  return { allowed: row.allowed === true, count: Number(row.count) };
}
