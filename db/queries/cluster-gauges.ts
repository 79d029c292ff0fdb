/**
 * What the whole installation is doing now, for the metrics scrape (lib/platform/metrics): read
 * from the database, so it is right however many processes share it.
 */
import { executeStatement, type Db } from "../client";

export interface ClusterGauges {
  approvalsPending: number;
  /** Runs not finished, by status. */
  runsByStatus: Record<string, number>;
  /** The run queue's pg-boss jobs by state; undefined before pg-boss made its schema. */
  queueJobs: Record<string, number> | undefined;
}

const COUNTS = `
  select 'approvals' as kind, 'pending' as key, count(*)::int as n from approvals where status = 'pending'
  union all
  select 'runs', status, count(*)::int from runs where status <> 'finished' group by status`;

const QUEUE_JOBS = `select state::text as key, count(*)::int as n from pgboss.job where name = $1 and state < 'completed' group by state`;

export async function readClusterGauges(db: Db, params: { queue: string }): Promise<ClusterGauges> {
  const rows = await executeStatement<{ kind: string; key: string; n: number }>(db, COUNTS, []);
  const runsByStatus: Record<string, number> = { queued: 0, running: 0, waiting_approval: 0 };
  let approvalsPending = 0;
  for (const row of rows) {
    if (row.kind === "approvals") approvalsPending = Number(row.n);
    else runsByStatus[row.key] = Number(row.n);
  }
  let queueJobs: Record<string, number> | undefined;
  try {
    queueJobs = { created: 0, retry: 0, active: 0 };
    for (const row of await executeStatement<{ key: string; n: number }>(db, QUEUE_JOBS, [params.queue])) queueJobs[row.key] = Number(row.n);
  } catch {
    queueJobs = undefined;
  }
  return { approvalsPending, runsByStatus, queueJobs };
}
