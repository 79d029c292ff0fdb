/**
 * The sliding windows of `limit` hooks (rate_limit_buckets), taken through `hp_lease_rate_limit`
 * (drizzle/0035): under a transaction-scoped advisory lock on the key, the window's buckets (a 60th
 * of the window each, at least 1 s) are summed and the call added, so web processes on one
 * PostgreSQL never let through more than `max` in any window between them, at a cost that does not
 * grow with `max`. One statement of fixed text (prepared once per connection). Far from the limit
 * it may also hand the process tokens in advance (rate_limit_leases), returned unspent by
 * `hp_settle_rate_limit_lease` (lib/features/hooks/rate-limit-leases.ts says when and why); with
 * `want` 1 it counts the one call alone.
 */
import { executeStatement, type Db } from "../client";

const LEASE =
  "select allowed, count, granted, lease, wait_ms from hp_lease_rate_limit($1::uuid, $2::text, $3::integer, $4::bigint, $5::integer, $6::integer, $7::integer)";
const SETTLE = "select hp_settle_rate_limit_lease($1::uuid, $2::integer)";
const RELEASE = "select hp_release_rate_limit($1::uuid, $2::text, $3::bigint) as released";

export interface RateLimitLeaseRequest {
  projectId: string;
  key: string;
  max: number;
  windowMs: number;
  /** Tokens wanted, this call's included (1: a plain take). */
  want: number;
  leaseMs: number;
  /** How long past its end an unreturned lease waits for its holder before it counts as spent. */
  graceMs: number;
}

export interface RateLimitLeaseAnswer {
  allowed: boolean;
  /** Let through in the window (this call included when allowed). */
  count: number;
  /** Tokens the caller may spend besides this call, until leaseMs after it asked. */
  granted: number;
  lease?: string;
  /** At the limit while others hold unspent tokens: ask again after this long. */
  waitMs: number;
}

export async function leaseRateLimit(db: Db, params: RateLimitLeaseRequest): Promise<RateLimitLeaseAnswer> {
  const [row] = await executeStatement<{ allowed: boolean; count: number; granted: number; lease: string | null; wait_ms: number }>(db, LEASE, [
    params.projectId,
    params.key,
    params.max,
    params.windowMs,
    params.want,
    params.leaseMs,
    params.graceMs,
  ]);
  return {
    allowed: row.allowed === true,
    count: Number(row.count),
    granted: Number(row.granted),
    ...(row.lease ? { lease: row.lease } : {}),
    waitMs: Number(row.wait_ms),
  };
}

/** Returns a lease's unspent tokens; a lease already closed changes nothing. */
export async function settleRateLimitLease(db: Db, params: { lease: string; unspent: number }): Promise<void> {
  await executeStatement(db, SETTLE, [params.lease, params.unspent]);
}

/**
 * Gives back one call a `limit` let through that the chain then blocked (hp_release_rate_limit,
 * drizzle/0038): it leaves the key's newest bucket in the window. Whether one was given back.
 */
export async function releaseRateLimit(db: Db, params: { projectId: string; key: string; windowMs: number }): Promise<boolean> {
  const [row] = await executeStatement<{ released: number }>(db, RELEASE, [params.projectId, params.key, params.windowMs]);
  return Number(row?.released ?? 0) > 0;
}
