/**
 * The time partitions of run_events (by ts) and hook_invocations (by created_at), made in
 * drizzle/0015_retention.sql: a first partition holding everything from before (FROM MINVALUE), one
 * range partition per day or month after it, and a DEFAULT partition for rows no range covers, so
 * an insert never fails. `ensurePartitions` creates the next periods' partitions ahead of time;
 * retention (db/queries/retention.ts) drops old ones.
 *
 * DDL on a partitioned table waits for the transactions using it and makes everyone after it wait:
 * attaching a partition locks the parent only against other DDL, but dropping one locks it against
 * everything (PostgreSQL takes ACCESS EXCLUSIVE on the parent; DETACH CONCURRENTLY is not allowed
 * with a DEFAULT partition). So every such statement runs with a short lock_timeout and is retried:
 * appends queue behind it for at most that long, never behind a long read it waits for.
 */
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../client";
import { startOfUtcDay } from "./chain-retention";

export const PARTITION_KEYS = { run_events: "ts", hook_invocations: "created_at" } as const;
export type PartitionedTable = keyof typeof PARTITION_KEYS;
export type PartitionPeriod = "day" | "month";

export interface Partition {
  name: string;
  /** Undefined for the first partition (FROM MINVALUE) and the DEFAULT one. */
  lower?: Date;
  upper?: Date;
  isDefault: boolean;
}

const DAY_MS = 86_400_000;
/** Serializes partition DDL of one table across processes (with the chains' 7_240_12x keys). */
const DDL_LOCK = { run_events: 7_240_131, hook_invocations: 7_240_132 } as const;
/** How long partition DDL waits for a lock before it gives way and tries again. */
const DDL_LOCK_TIMEOUT_MS = 100;
const DDL_ATTEMPTS = 50;

/** The partitions of `table`, the first (MINVALUE) one first and DEFAULT last. */
export async function listPartitions(db: Db, params: { table: PartitionedTable }): Promise<Partition[]> {
  const rows = await queryRows<{ name: string; bound: string; lower_ms: number | null; upper_ms: number | null }>(
    db,
    sql`select c.relname as name, b.bound,
               extract(epoch from (regexp_match(b.bound, 'FROM \\(''([^'']+)''\\)'))[1]::timestamptz) * 1000 as lower_ms,
               extract(epoch from (regexp_match(b.bound, 'TO \\(''([^'']+)''\\)'))[1]::timestamptz) * 1000 as upper_ms
          from pg_inherits i
          join pg_class c on c.oid = i.inhrelid
          cross join lateral (select pg_get_expr(c.relpartbound, c.oid) as bound) b
         where i.inhparent = ${params.table}::regclass`,
  );
  const toDate = (ms: number | string | null) => (ms === null ? undefined : new Date(Number(ms)));
  return rows
    .map((r) => ({ name: r.name, lower: toDate(r.lower_ms), upper: toDate(r.upper_ms), isDefault: r.bound === "DEFAULT" }))
    .sort((a, b) => Number(a.isDefault) - Number(b.isDefault) || (a.lower?.getTime() ?? -Infinity) - (b.lower?.getTime() ?? -Infinity));
}

/** Where a partition starting at `from` ends: the next UTC midnight, or the first of the next month. */
export function periodEnd(from: Date, period: PartitionPeriod): Date {
  if (period === "day") return new Date(startOfUtcDay(from).getTime() + DAY_MS);
  return new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1));
}

function isLockTimeout(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === "55P03") return true;
  }
  return false;
}

/**
 * Runs `ddl` in a transaction holding this table's DDL lock, with a short lock_timeout, trying again
 * (after a short, growing pause) while a lock is not granted in time.
 */
export async function withPartitionDdl<T>(db: Db, table: PartitionedTable, ddl: (tx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(async (transaction) => {
        const tx = transaction as unknown as Db;
        await tx.execute(sql`select pg_advisory_xact_lock(${DDL_LOCK[table]})`);
        await tx.execute(sql.raw(`set local lock_timeout = '${DDL_LOCK_TIMEOUT_MS}ms'`));
        // Its commit need not wait for the disk (db/statement-pacing.ts withoutFlushWait says why).
        await tx.execute(sql`set local synchronous_commit = off`);
        return ddl(tx);
      });
    } catch (error) {
      if (!isLockTimeout(error) || attempt >= DDL_ATTEMPTS) throw error;
      await new Promise((r) => setTimeout(r, Math.min(1_000, 20 * attempt) * (0.5 + Math.random())));
    }
  }
}

/**
 * Makes sure partitions of `period` cover `table` from its last partition's end to past `until`. A
 * period the DEFAULT partition already holds rows of is left to it (attaching would have to move
 * them): those rows stay there, where retention deletes them row by row. Returns the partitions made.
 */
export async function ensurePartitions(
  db: Db,
  params: { table: PartitionedTable; period: PartitionPeriod; until: Date },
): Promise<string[]> {
  const { table, period, until } = params;
  const key = PARTITION_KEYS[table];
  const made: string[] = [];
  let from: Date | undefined;
  for (;;) {
    const created = await withPartitionDdl(db, table, async (tx) => {
      const ranges = (await listPartitions(tx, { table })).filter((p) => !p.isDefault && p.upper);
      const last = ranges.at(-1)?.upper;
      if (!last) throw new Error(`${table} has no range partition to continue from (drizzle/0015_retention.sql makes the first)`);
      const lower = from && from > last ? from : last;
      if (lower >= until) return { lower, upper: lower, name: undefined };
      const upper = periodEnd(lower, period);
      const [taken] = await queryRows<{ n: number }>(
        tx,
        sql`select count(*)::int as n from ${sql.identifier(`${table}_default`)} where ${sql.identifier(key)} >= ${lower.toISOString()}::timestamptz and ${sql.identifier(key)} < ${upper.toISOString()}::timestamptz`,
      );
      if (taken.n > 0) return { lower, upper, name: undefined };
      const [row] = await queryRows<{ name: string }>(
        tx,
        sql`select hookplane_add_partition(${table}, ${lower.toISOString()}::timestamptz, ${upper.toISOString()}::timestamptz) as name`,
      );
      return { lower, upper, name: row.name };
    });
    if (created.name) made.push(created.name);
    if (created.upper.getTime() === created.lower.getTime()) return made;
    from = created.upper;
  }
}

/** Drops one partition (its rows go with it), within `withPartitionDdl`'s transaction. */
export async function dropPartition(tx: Db, params: { name: string }): Promise<void> {
  await tx.execute(sql`drop table ${sql.identifier(params.name)}`);
}

/** Exact row count of one partition (not its parent). */
export async function countPartitionRows(db: Db, params: { name: string }): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from only ${sql.identifier(params.name)}`);
  return row.n;
}
