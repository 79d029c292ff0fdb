/**
 * What the whole installation is doing now, for the metrics scrape (lib/platform/metrics): read
 * from the database, so it is right however many processes share it.
 */
import { CHAINED_TABLES, type ChainedTable } from "@/lib/core/audit/chain-report";
import { executeStatement, type Db } from "../client";

export interface ClusterGauges {
  approvalsPending: number;
  /** Runs not finished, by status. */
  runsByStatus: Record<string, number>;
  /** The run queue's pg-boss jobs by state; undefined before pg-boss made its schema. */
  queueJobs: Record<string, number> | undefined;
  /**
   * Each hash chain's backlog: rows past how far it is sealed through (at most UNSEALED_COUNT_CAP,
   * so a stuck sealer's scrape stays cheap) and the age in seconds of the oldest of them (0 when none).
   */
  unsealed: Record<ChainedTable, { rows: number; oldestSeconds: number }>;
}

/** A backlog this long is reported as this long: counting it whole would be a scan of it. */
export const UNSEALED_COUNT_CAP = 100_000;

const COUNTS = `
  select 'approvals' as kind, 'pending' as key, count(*)::int as n from approvals where status = 'pending'
  union all
  select 'runs', status, count(*)::int from runs where status <> 'finished' group by status`;

/**
 * Per chained table, from chain_state's `sealed_through` (every id up to it is linked or was never
 * committed: hash-chain.ts): the rows after it, counted up to the cap, and the oldest one's age.
 * Both read the table's id index from that point on, so they cost what the backlog is, capped.
 */
const UNSEALED = CHAINED_TABLES.map(
  (table) => `
  select '${table}' as chain,
         (select count(*)::int from (select 1 from ${table} t where t.id > b.after limit ${UNSEALED_COUNT_CAP}) backlog) as rows,
         coalesce((select extract(epoch from now() - t.created_at)::float8 from ${table} t where t.id > b.after order by t.id limit 1), 0) as oldest
  from (select coalesce((select s.sealed_through from chain_state s where s.table_name = '${table}'), 0) as after) b`,
).join("\n  union all");

const QUEUE_JOBS = `select state::text as key, count(*)::int as n from pgboss.job where name = $1 and state < 'completed' group by state`;

export async function readClusterGauges(db: Db, params: { queue: string }): Promise<ClusterGauges> {
  const rows = await executeStatement<{ kind: string; key: string; n: number }>(db, COUNTS, []);
  const runsByStatus: Record<string, number> = { queued: 0, running: 0, waiting_approval: 0 };
  let approvalsPending = 0;
  for (const row of rows) {
    if (row.kind === "approvals") approvalsPending = Number(row.n);
    else runsByStatus[row.key] = Number(row.n);
  }
  const unsealed = {} as ClusterGauges["unsealed"];
  for (const row of await executeStatement<{ chain: ChainedTable; rows: number; oldest: number }>(db, UNSEALED, [])) {
    unsealed[row.chain] = { rows: Number(row.rows), oldestSeconds: Math.max(0, Number(row.oldest)) };
  }
  let queueJobs: Record<string, number> | undefined;
  try {
    queueJobs = { created: 0, retry: 0, active: 0 };
    for (const row of await executeStatement<{ key: string; n: number }>(db, QUEUE_JOBS, [params.queue])) queueJobs[row.key] = Number(row.n);
  } catch {
    queueJobs = undefined;
  }
  return { approvalsPending, runsByStatus, queueJobs, unsealed };
}
