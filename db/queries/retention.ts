/**
 * What retention deletes (lib/features/retention/README.md says what and when):
 * - runs finished before their agent's cutoff, with everything they recorded (events, transcript,
 *   approvals). Whole run_events partitions go with DROP once every run with events in them
 *   expired; the rest row by row, in batches of short transactions;
 * - the oldest whole days of the hook ledger and the audit log, as a prefix of their hash chains,
 *   anchored (db/queries/hash-chain.ts): ledger partitions by DROP, the rest row by row.
 * Every statement here is bounded: a batch of rows or one partition's DDL under a short lock_timeout.
 */
import { performance } from "node:perf_hooks";
import { sql, type SQL } from "drizzle-orm";
import { queryRows, type Db } from "../client";
import { restAfter, withoutFlushWait, yieldToEventLoop } from "../statement-pacing";
import { startOfUtcDay } from "./chain-retention";
import { insertChainAnchor, latestChainAnchor, lockChain, sealChain } from "./hash-chain";
import { rewriteEventPartition, survivorShare, worthRewriting } from "./partition-rewrite";
import { countPartitionRows, dropPartition, listPartitions, withPartitionDdl, type Partition, type PartitionedTable } from "./partitions";

const DAY_MS = 86_400_000;
/** Rows one event-deleting statement removes (its own transaction): its WAL is flushed at once. */
export const EVENT_DELETE_BATCH = 500;
/**
 * How far before its run's creation an event's time may lie (the app's clock against the
 * database's): a run created this long after a partition's end is taken to have no events in it.
 */
const CLOCK_SLACK_MS = DAY_MS;

/** Which runs have expired: the instance default and "today" (the UTC midnight cutoffs count from). */
export interface RunWindow {
  /** The UTC midnight of the day retention runs. */
  today: Date;
  /** Days for agents without their own (`agents.retention_days` NULL); 0 keeps forever. */
  defaultDays: number;
}

/** Days of `a` (an agents row) in effect: its own, or the default. */
const effectiveDays = (w: RunWindow): SQL => sql`coalesce(a.retention_days, ${w.defaultDays}::int)`;

/** `r` (a runs row of agent `a`) finished before the UTC midnight its agent's window reaches back to. */
function expired(w: RunWindow): SQL {
  return sql`(r.status = 'finished' and ${effectiveDays(w)} > 0
    and r.finished_at < ${w.today.toISOString()}::timestamptz - ${effectiveDays(w)} * interval '1 day')`;
}

export interface ExpiredRun {
  id: string;
  createdAt: Date;
  finishedAt: Date;
}

/** Expired runs, oldest finish first, up to `limit`. */
export async function listExpiredRuns(db: Db, params: { window: RunWindow; limit: number }): Promise<ExpiredRun[]> {
  const rows = await queryRows<{ id: string; created_ms: number; finished_ms: number }>(
    db,
    sql`select r.id, extract(epoch from r.created_at) * 1000 as created_ms, extract(epoch from r.finished_at) * 1000 as finished_ms
          from runs r join agents a on a.id = r.agent_id where ${expired(params.window)} order by r.finished_at limit ${params.limit}`,
  );
  return rows.map((r) => ({ id: r.id, createdAt: new Date(Number(r.created_ms)), finishedAt: new Date(Number(r.finished_ms)) }));
}

/**
 * The cutoff every run's window has passed: the oldest of the agents' (and the default's, which an
 * agent created later takes), or undefined when one keeps forever. No partition ending after it can
 * hold only expired runs.
 */
export async function oldestRunCutoff(db: Db, params: { window: RunWindow }): Promise<Date | undefined> {
  const [row] = await queryRows<{ longest: number | null; forever: boolean }>(
    db,
    sql`select max(d)::int as longest, coalesce(bool_or(d = 0), false) as forever
          from (select ${params.window.defaultDays}::int as d
                union all select coalesce(retention_days, ${params.window.defaultDays}::int) from agents) days`,
  );
  if (row.forever || row.longest === null) return undefined;
  return new Date(params.window.today.getTime() - row.longest * DAY_MS);
}

/**
 * The most recent cutoff of any window: the shortest finite one (the agents' and the default's).
 * No run of a partition ending after it has expired; a partition ending by it may hold expired
 * runs beside kept ones. Undefined when every window keeps forever.
 */
export async function newestRunCutoff(db: Db, params: { window: RunWindow }): Promise<Date | undefined> {
  const [row] = await queryRows<{ shortest: number | null }>(
    db,
    sql`select min(d) filter (where d > 0)::int as shortest
          from (select ${params.window.defaultDays}::int as d
                union all select coalesce(retention_days, ${params.window.defaultDays}::int) from agents) days`,
  );
  if (row.shortest === null) return undefined;
  return new Date(params.window.today.getTime() - row.shortest * DAY_MS);
}

/** Runs not expired that may have events before `before`: the ones a partition ending there could hold. */
async function keptRunsCreatedBefore(db: Db, params: { window: RunWindow; before: Date }): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`select r.id from runs r join agents a on a.id = r.agent_id
         where r.created_at < ${new Date(params.before.getTime() + CLOCK_SLACK_MS).toISOString()}::timestamptz and not ${expired(params.window)}`,
  );
  return rows.map((r) => r.id);
}

/**
 * Whether an expired run may have events in [lower, upper): one created before its end and finished
 * after its start (with the clock slack). Read from `runs` by index, so a partition of kept runs
 * only (an agent keeping forever, once its neighbours went) costs no scan of its rows on every pass.
 */
async function expiredRunsOverlap(db: Db, params: { window: RunWindow; lower?: Date; upper: Date }): Promise<boolean> {
  const after = params.lower ? sql`and r.finished_at >= ${new Date(params.lower.getTime() - CLOCK_SLACK_MS).toISOString()}::timestamptz` : sql``;
  const [row] = await queryRows<{ found: boolean }>(
    db,
    sql`select exists (select 1 from runs r join agents a on a.id = r.agent_id
         where r.created_at < ${new Date(params.upper.getTime() + CLOCK_SLACK_MS).toISOString()}::timestamptz ${after}
           and ${expired(params.window)}) as found`,
  );
  return row.found;
}

async function partitionHoldsRuns(db: Db, params: { name: string; runIds: string[] }): Promise<boolean> {
  if (params.runIds.length === 0) return false;
  const [row] = await queryRows<{ held: boolean }>(
    db,
    sql`select exists (select 1 from only ${sql.identifier(params.name)} where run_id = any(${`{${params.runIds.join(",")}}`}::uuid[])) as held`,
  );
  return row.held;
}

function isUndefinedTable(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === "42P01") return true;
  }
  return false;
}

/**
 * Drops the run_events partitions that end by `before` and hold events of expired runs only. One
 * where a kept run (an agent that keeps forever, a run still going) has a few events is rewritten
 * with only those (db/queries/partition-rewrite.ts); one where many survive is left to the row by
 * row path. Their runs are deleted after, by `deleteExpiredRuns`. Returns the partitions dropped or
 * rewritten and how many events went with them.
 */
export async function dropExpiredEventPartitions(
  db: Db,
  params: { window: RunWindow; before: Date },
): Promise<{ partitions: string[]; rows: number }> {
  const dropped: string[] = [];
  let rows = 0;
  const old = (await listPartitions(db, { table: "run_events" })).filter((p) => !p.isDefault && p.upper && p.upper <= params.before);
  for (const partition of old) {
    await yieldToEventLoop();
    const kept = await keptRunsCreatedBefore(db, { window: params.window, before: partition.upper! });
    if (await partitionHoldsRuns(db, { name: partition.name, runIds: kept })) {
      if (!(await expiredRunsOverlap(db, { window: params.window, lower: partition.lower, upper: partition.upper! }))) continue;
      const share = await survivorShare(db, { partition: partition.name, keptRunIds: kept });
      if (!worthRewriting(share)) continue;
      const started = performance.now();
      rows += await rewriteEventPartition(db, { partition, keptRunIds: kept });
      await restAfter(started);
      dropped.push(partition.name);
      continue;
    }
    const n = await countPartitionRows(db, { name: partition.name });
    // Appends queue behind a DROP while it waits for its lock: spaced out, fewer of them do.
    const started = performance.now();
    await withPartitionDdl(db, "run_events", (tx) => dropPartition(tx, { name: partition.name }));
    await restAfter(started);
    dropped.push(partition.name);
    rows += n;
  }
  return { partitions: dropped, rows };
}

/**
 * Deletes the events of `runIds`, partition by partition, at most `batchRows` rows a statement (each
 * its own transaction). `span` (the runs' first creation and last finish) skips the partitions that
 * cannot hold their events. Returns how many went.
 */
export async function deleteEventsOfRuns(
  db: Db,
  params: { runIds: string[]; span?: { from: Date; to: Date }; batchRows?: number },
): Promise<number> {
  if (params.runIds.length === 0) return 0;
  const batchRows = params.batchRows ?? EVENT_DELETE_BATCH;
  const ids = `{${params.runIds.join(",")}}`;
  const from = params.span && params.span.from.getTime() - CLOCK_SLACK_MS;
  const to = params.span && params.span.to.getTime() + CLOCK_SLACK_MS;
  const partitions = (await listPartitions(db, { table: "run_events" })).filter(
    (p) => from === undefined || to === undefined || ((!p.upper || p.upper.getTime() > from) && (!p.lower || p.lower.getTime() < to)),
  );
  let deleted = 0;
  for (const partition of partitions) {
    const table = sql.identifier(partition.name);
    for (;;) {
      const started = performance.now();
      let n: number;
      try {
        const done = await withoutFlushWait(db, (tx) =>
          queryRows<{ n: number }>(
            tx,
            sql`with gone as (
                  delete from only ${table} where ctid = any(array(select ctid from only ${table} where run_id = any(${ids}::uuid[]) limit ${batchRows}))
                  returning 1)
                select count(*)::int as n from gone`,
          ),
        );
        n = done[0].n;
      } catch (error) {
        // Dropped meanwhile (by retention in another process): its rows are gone already.
        if (isUndefinedTable(error)) break;
        throw error;
      }
      deleted += n;
      await restAfter(started);
      if (n < batchRows) break;
    }
  }
  return deleted;
}

/**
 * Deletes run rows; their messages and approvals go by foreign key, any event left by the trigger
 * of drizzle/0015_retention.sql. Returns the runs deleted.
 */
export async function deleteRunRows(db: Db, params: { runIds: string[] }): Promise<number> {
  if (params.runIds.length === 0) return 0;
  const started = performance.now();
  const rows = await withoutFlushWait(db, (tx) =>
    queryRows<{ n: number }>(
      tx,
      sql`with gone as (delete from runs where id = any(${`{${params.runIds.join(",")}}`}::uuid[]) returning 1) select count(*)::int as n from gone`,
    ),
  );
  await restAfter(started);
  return rows[0].n;
}

export interface ChainPartitionDrop {
  partitions: string[];
  rows: number;
}

/**
 * Drops the oldest hook_invocations partitions ending by `before` (a UTC midnight), each only while
 * its rows are the chain's oldest (a prefix: nothing outside it at or before its last position):
 * first the anchor the next row links to, then DROP, in one transaction. Stops at the first that is
 * not (a row sealed late sits in a newer one, or rows are not sealed yet); what is left of those days
 * goes row by row (deleteChainDaysBefore).
 */
export async function dropLedgerPartitionsBefore(db: Db, params: { before: Date }): Promise<ChainPartitionDrop> {
  const before = startOfUtcDay(params.before);
  await sealChain(db, { table: "hook_invocations" });
  const dropped: string[] = [];
  let rows = 0;
  const old = (await listPartitions(db, { table: "hook_invocations" })).filter((p) => !p.isDefault && p.upper && p.upper <= before);
  for (const partition of old) {
    const started = performance.now();
    const result = await withPartitionDdl(db, "hook_invocations", (tx) => dropChainPrefixPartition(tx, partition));
    await restAfter(started);
    if (result === undefined) break;
    dropped.push(partition.name);
    rows += result;
  }
  return { partitions: dropped, rows };
}

/** One partition of dropLedgerPartitionsBefore: the rows it dropped, or undefined when it may not. */
async function dropChainPrefixPartition(tx: Db, partition: Partition): Promise<number | undefined> {
  const table: PartitionedTable = "hook_invocations";
  await lockChain(tx, table, true);
  const name = sql.identifier(partition.name);
  const [stats] = await queryRows<{ n: number; unsealed: number; last: number | null }>(
    tx,
    sql`select count(*)::int as n, count(*) filter (where l.chain_seq is null)::int as unsealed, max(l.chain_seq)::float8 as last
        from only ${name} p left join chain_links l on l.table_name = ${table} and l.row_id = p.id`,
  );
  if (stats.n === 0) {
    await dropPartition(tx, { name: partition.name });
    return 0;
  }
  if (stats.unsealed > 0 || stats.last === null) return undefined;
  const last = Number(stats.last);
  // A link lives as long as its row: the links say where the rows outside this partition stand.
  const outside = partition.lower
    ? sql`(row_created_at < ${partition.lower.toISOString()}::timestamptz or row_created_at >= ${partition.upper!.toISOString()}::timestamptz)`
    : sql`row_created_at >= ${partition.upper!.toISOString()}::timestamptz`;
  const [kept] = await queryRows<{ first: number | null }>(
    tx,
    sql`select min(chain_seq)::float8 as first from chain_links where table_name = ${table} and ${outside}`,
  );
  if (kept.first !== null && Number(kept.first) <= last) return undefined;
  const previous = await latestChainAnchor(tx, { table });
  if (previous && previous.chainSeq >= last) return undefined;
  const [row] = await queryRows<{ hash: string }>(tx, sql`select hash from chain_links where table_name = ${table} and chain_seq = ${last}`);
  await insertChainAnchor(tx, { table, position: last, hash: row.hash, before: partition.upper!, deletedRows: stats.n });
  await dropPartition(tx, { name: partition.name });
  // Their links go with them (the anchor just written covers them).
  await tx.execute(sql`delete from chain_links where table_name = ${table} and chain_seq <= ${last}`);
  return stats.n;
}
