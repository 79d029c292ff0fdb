/**
 * One call counted alone in a `limit` window, with nothing leased (what the hook path does near a
 * limit): for tests of the window itself (db/queries/rate-limits.ts).
 */
import type { Db } from "@/db/client";
import { leaseRateLimit } from "@/db/queries/rate-limits";

export async function takeOne(db: Db, params: { projectId: string; key: string; max: number; windowMs: number }): Promise<{ allowed: boolean; count: number }> {
  const { allowed, count } = await leaseRateLimit(db, { ...params, want: 1, leaseMs: 0, graceMs: 5_000 });
  return { allowed, count };
}
