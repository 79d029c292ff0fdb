/**
 * Retention's third way out for an old run_events partition: most of its rows belong to expired
 * runs, but a run that is kept (an agent that keeps forever, a run still going) has events in it,
 * so it cannot be dropped. Deleting the expired rows one by one writes every touched page into the
 * WAL (full-page images after each checkpoint) and the appends' commits queue behind those flushes:
 * bench:retention measured append p99 at 5–9x its idle figure on PostgreSQL that way. Instead the
 * survivors are copied into a new table, which takes the old one's place in one short DDL
 * transaction (detach, attach for the same range, drop, rename): the WAL carries the few survivors
 * and the DDL, and appends wait for the lock at most lock_timeout at a time, as for a drop.
 *
 * The copy runs under a SHARE lock on the old partition only (nothing appends to a past day's
 * partition but a run whose clock is far off; such an append waits), and its indexes are built
 * before the swap, so attaching finds them and builds nothing while the parent is locked.
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
 * Replaces the run_events partition `partition` by a copy holding only the events of `keptRunIds`
 * (same name, same range). Returns how many rows went.
 */
export async function rewriteEventPartition(db: Db, params: { partition: Partition; keptRunIds: string[] }): Promise<number> {
  const { partition } = params;
  if (!partition.upper || partition.isDefault) throw new Error(`${partition.name} is not a range partition`);
  const old = sql.identifier(partition.name);
  const fresh = sql.identifier(`${partition.name}_kept`);
  const ids = `{${params.keptRunIds.join(",")}}`;
  return withPartitionDdl(db, "run_events", async (tx) => {
    await tx.execute(sql`lock table only ${old} in share mode`);
    await tx.execute(sql`create table ${fresh} (like run_events including defaults including constraints)`);
    await tx.execute(sql`insert into ${fresh} select * from only ${old} where run_id = any(${ids}::uuid[])`);
    // The parent's unique indexes, built now on the few survivors, so ATTACH only adopts them.
    await tx.execute(sql`alter table ${fresh} add primary key (id, ts)`);
    await tx.execute(sql`create unique index on ${fresh} (run_id, seq, ts)`);
    const [{ n: before }] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from only ${old}`);
    const [{ n: kept }] = await queryRows<{ n: number }>(tx, sql`select count(*)::int as n from ${fresh}`);
    await tx.execute(sql`alter table run_events detach partition ${old}`);
    // DDL takes no parameters: the bounds are written as literals (ISO text of a Date, nothing else).
    // The first partition reaches back to MINVALUE (drizzle/0015_retention.sql).
    const bound = (at: Date) => sql.raw(`'${at.toISOString()}'`);
    const lower = partition.lower ? bound(partition.lower) : sql.raw("MINVALUE");
    await tx.execute(sql`alter table run_events attach partition ${fresh} for values from (${lower}) to (${bound(partition.upper!)})`);
    await tx.execute(sql`drop table ${old}`);
    await tx.execute(sql`alter table ${fresh} rename to ${old}`);
    return before - kept;
  });
}
