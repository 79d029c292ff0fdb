/**
 * Retention's third way out for an old run_events partition: most of its rows belong to expired
 * runs, but a run that is kept (an agent that keeps forever, a run still going) has events in it,
 * so it cannot be dropped. Deleting the expired rows one by one writes every touched page into the
 * WAL (full-page images after each checkpoint) and the appends' commits queue behind those flushes:
 * bench:retention measured append p99 at 5–9x its idle figure on PostgreSQL that way. Instead the
 * survivors are set aside, the partition is truncated and they go back: the WAL carries the few
 * survivors and the truncate.
 *
 * Only the partition is locked, never the parent: appends route to today's partition and go on
 * (swapping in a new table instead, with DETACH, held the parent's ACCESS EXCLUSIVE lock to the
 * commit, and every append queued behind it: p99 2.8x idle). Nothing appends to a past day's
 * partition but a run whose clock is far off; such an append waits, as a reader of its rows does
 * while it is truncated.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../client";
import { withPartitionDdl, type Partition } from "./partitions";

/** Rewritten when at most this share of its rows survive; past it, deleting the rest costs less. */
export const REWRITE_MAX_SURVIVOR_SHARE = 0.25;

export interface PartitionShare {
  rows: number;
  survivors: number;
}

/** How many rows `partition` holds and how many of them belong to `keptRunIds`. */
export async function survivorShare(db: Db, params: { partition: string; keptRunIds: string[] }): Promise<PartitionShare> {
  const table = sql.identifier(params.partition);
  const [row] = await queryRows<PartitionShare>(
    db,
    sql`select count(*)::int as rows,
               count(*) filter (where run_id = any(${`{${params.keptRunIds.join(",")}}`}::uuid[]))::int as survivors
          from only ${table}`,
  );
  return row;
}

export function worthRewriting(share: PartitionShare): boolean {
  return share.rows > 0 && share.survivors <= share.rows * REWRITE_MAX_SURVIVOR_SHARE;
}

/**
 * Empties the run_events partition `partition` but for the events of `keptRunIds`, which are put
 * back. Returns how many rows went.
 */
export async function rewriteEventPartition(db: Db, params: { partition: Partition; keptRunIds: string[] }): Promise<number> {
  const table = sql.identifier(params.partition.name);
  const ids = `{${params.keptRunIds.join(",")}}`;
  return withPartitionDdl(db, "run_events", async (tx) => {
    // SHARE while the survivors are copied aside: readers go on, and nothing changes under the copy.
    await tx.execute(sql`lock table only ${table} in share mode`);
    const [{ n: before }] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from only ${table}`);
    await tx.execute(sql`create temporary table hookplane_kept_events on commit drop as select * from only ${table} where run_id = any(${ids}::uuid[])`);
    // Readers of this one partition wait from here to the commit: a truncate and the few survivors.
    await tx.execute(sql`lock table only ${table} in access exclusive mode`);
    await tx.execute(sql`truncate only ${table}`);
    const [{ n: kept }] = await queryRows<{ n: number }>(
      tx,
      sql`with moved as (insert into ${table} select * from hookplane_kept_events returning 1) select count(*)::int as n from moved`,
    );
    return before - kept;
  });
}
