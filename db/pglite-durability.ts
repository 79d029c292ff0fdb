/**
 * What the embedded database promises, and what keeps it small (issue 19).
 *
 * Durability. PGlite starts PostgreSQL with `-F` (fsync off), and under Node its file system
 * (Emscripten's NODEFS) has no fsync at all: a write reached the operating system's cache when it
 * was acknowledged, so it survives kill -9 of the process but not a power loss or a kernel crash.
 * With fsync on (the default, HOOKPLANE_PGLITE_FSYNC=0 turns it off) PostgreSQL runs without `-F`,
 * syncs its WAL with fsync() (`wal_sync_method=fsync`: the only call NODEFS routes to its file
 * operations), and each of those fsyncs reaches the disk through fs.fsyncSync: an acknowledged
 * commit is on disk, as with PostgreSQL's defaults.
 *
 * Size. PGlite runs PostgreSQL as a single backend, so nothing vacuums: a run's row is rewritten
 * on every step and its old versions pile up. `startPgliteMaintenance` does what autovacuum would,
 * with autovacuum's thresholds: every few seconds it reads the dead-row counts and vacuums a table
 * that has more than 50 + 20% of its live rows dead, and it checkpoints once the WAL written since
 * the last checkpoint passes a bound (max_wal_size is small too), so the WAL stays bounded.
 */
import fs from "node:fs";
import type { PGlite, PGliteOptions } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";

export interface PgliteDurability {
  fsync: boolean;
}


/** Emscripten's FS objects as far as this file touches them. */
interface EmscriptenModule {
  NODEFS: { stream_ops: { fsync?: (stream: { nfd?: number }) => number } };
}

/** NODEFS with an fsync that reaches the disk. */
class SyncingNodeFS extends NodeFS {
  /** fsync calls that reached the disk (for the benchmark). */
  static syncs = 0;

  override async init(pg: PGlite, options: Parameters<NodeFS["init"]>[1]) {
    const result = await super.init(pg, options);
    const preRun = (result.emscriptenOpts as { preRun?: ((module: EmscriptenModule) => void)[] }).preRun ?? [];
    preRun.push((module) => {
      module.NODEFS.stream_ops.fsync = (stream) => {
        if (stream.nfd === undefined) return 0;
        try {
          fs.fsyncSync(stream.nfd);
          SyncingNodeFS.syncs++;
          if (sharedSyncs) Atomics.add(sharedSyncs, 0, 1);
        } catch (error) {
          // A directory opened read-only cannot be synced everywhere; anything else is real.
          if ((error as NodeJS.ErrnoException).code !== "EINVAL" && (error as NodeJS.ErrnoException).code !== "EBADF") throw error;
        }
        return 0;
      };
    });
    (result.emscriptenOpts as { preRun?: unknown }).preRun = preRun;
    return result;
  }
}

/** Where the database's own thread counts its fsyncs, for the process to read (db/pglite-thread.ts). */
let sharedSyncs: Int32Array | undefined;
const threadSyncs = new Set<Int32Array>();

/** On the database's thread: count each fsync into `counter` too. */
export function countSyncsInto(counter: Int32Array): void {
  sharedSyncs = counter;
}

/** In the process: the fsyncs a database thread counts into `counter` are this process's too. */
export function addThreadSyncs(counter: Int32Array): void {
  threadSyncs.add(counter);
}

/** fsync calls that reached the disk so far in this process, its database thread's included. */
export function pgliteSyncCount(): number {
  let total = SyncingNodeFS.syncs;
  for (const counter of threadSyncs) total += Atomics.load(counter, 0);
  return total;
}

/** WAL past which a checkpoint is due (PostgreSQL would wait for 1 GB). */
const MAX_WAL_MB = 64;

/**
 * PostgreSQL's buffer cache inside PGlite's WebAssembly memory. The default 128 MB is touched as
 * the database is read and stays resident: it was 140 MB of the web process's idle RSS (issue 12's
 * figure, bench:start). The pages it would hold are in the operating system's file cache anyway
 * (PGlite reads its files through Node's fs), so a small cache costs copies, not disk reads.
 */
const SHARED_BUFFERS = "16MB";

/** PGlite's options for a data directory on disk. */
export async function pgliteOptions(dataDir: string, durability: PgliteDurability): Promise<PGliteOptions> {
  const { PGlite } = await import("@electric-sql/pglite");
  const defaults = PGlite.defaultStartParams ?? [];
  const walBounds = ["-c", `max_wal_size=${MAX_WAL_MB}MB`, "-c", "min_wal_size=32MB", "-c", `shared_buffers=${SHARED_BUFFERS}`];
  if (!durability.fsync) return { dataDir, startParams: [...defaults, ...walBounds] };
  return {
    fs: new SyncingNodeFS(dataDir),
    startParams: [...defaults.filter((p) => p !== "-F"), ...walBounds, "-c", "wal_sync_method=fsync", "-c", "synchronous_commit=on"],
  };
}

export interface MaintenanceOptions {
  /** How often the dead-row counts are read; 0 turns maintenance off. */
  intervalMs: number;
  /** WAL since the last checkpoint that makes one due. */
  checkpointAfterBytes?: number;
  onError?: (error: unknown) => void;
}

export interface Maintenance {
  /** One pass now: vacuums what is due, checkpoints if due. Returns the tables vacuumed. */
  runOnce(): Promise<string[]>;
  stop(): Promise<void>;
}

interface TableStat {
  schema: string;
  name: string;
  live: number;
  dead: number;
}

/** Runs a statement that is not allowed inside a transaction block (VACUUM) through PGlite. */
async function exec(client: PGlite, text: string) {
  await client.exec(text);
}

export function startPgliteMaintenance(client: PGlite, options: MaintenanceOptions): Maintenance {
  const checkpointAfter = options.checkpointAfterBytes ?? 32 * 1024 * 1024;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<string[]> | undefined;

  const pass = async (): Promise<string[]> => {
    // The single backend flushes its table counts to the view at most once a second, and only
    // when it goes idle: read without this, the counts lag a busy second's updates behind, and
    // a fast machine piles up that many dead rows more before a vacuum (the soak test saw it).
    await client.query("select pg_stat_force_next_flush()");
    const { rows } = await client.query<TableStat>(
      `select schemaname as schema, relname as name, n_live_tup::int as live, n_dead_tup::int as dead
         from pg_stat_user_tables where n_dead_tup > 50 + 0.2 * n_live_tup order by n_dead_tup desc`,
    );
    const vacuumed: string[] = [];
    for (const table of rows) {
      if (stopped) break;
      await exec(client, `vacuum ${quote(table.schema)}.${quote(table.name)}`);
      vacuumed.push(`${table.schema}.${table.name}`);
    }
    const wal = await client.query<{ bytes: string }>(
      "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), (pg_control_checkpoint()).redo_lsn)::bigint::text as bytes",
    );
    if (!stopped && Number(wal.rows[0]?.bytes ?? 0) > checkpointAfter) await exec(client, "checkpoint");
    return vacuumed;
  };

  const runOnce = () => {
    running ??= pass().finally(() => (running = undefined));
    return running;
  };

  const loop = () => {
    if (stopped || options.intervalMs <= 0) return;
    timer = setTimeout(() => {
      runOnce()
        .catch((error) => options.onError?.(error))
        .finally(loop);
    }, options.intervalMs);
    timer.unref();
  };
  loop();

  return {
    runOnce,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running?.catch(() => {});
    },
  };
}

function quote(identifier: string): string {
  return `"${identifier.replace(/"/g, '""')}"`;
}
