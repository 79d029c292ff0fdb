/**
 * How big the `runs` table is against what it holds, for the soak test and bench:durability:
 * heap (its main fork), the bytes of its live rows, its TOAST, and the WAL written since the last
 * checkpoint. Live bytes are the rows' own sizes (pg_column_size of each row), the heap's floor.
 */
import type { DbHandle } from "./client";

export interface RunsHeapFigures {
  liveRows: number;
  liveBytes: number;
  heapBytes: number;
  toastBytes: number;
  totalBytes: number;
  walSinceCheckpointBytes: number;
}

export async function runsHeapFigures(handle: Pick<DbHandle, "execute">): Promise<RunsHeapFigures> {
  const { rows } = await handle.execute(`
    select (select count(*) from runs)::int as live_rows,
           coalesce((select sum(pg_column_size(r.*)) from runs r), 0)::bigint::text as live_bytes,
           pg_relation_size('runs')::bigint::text as heap_bytes,
           coalesce(pg_relation_size(nullif((select reltoastrelid from pg_class where relname = 'runs'), 0)), 0)::bigint::text as toast_bytes,
           pg_total_relation_size('runs')::bigint::text as total_bytes,
           pg_wal_lsn_diff(pg_current_wal_insert_lsn(), (pg_control_checkpoint()).redo_lsn)::bigint::text as wal_bytes`);
  const row = rows[0];
  return {
    liveRows: Number(row.live_rows),
    liveBytes: Number(row.live_bytes),
    heapBytes: Number(row.heap_bytes),
    toastBytes: Number(row.toast_bytes),
    totalBytes: Number(row.total_bytes),
    walSinceCheckpointBytes: Number(row.wal_bytes),
  };
}
