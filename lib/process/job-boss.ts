/**
 * The process's pg-boss: the run queue, retention's pass and alert evaluation are its queues.
 * Embedded, it runs on PGlite through its executeSql adapter; on PostgreSQL every process of the
 * deployment shares its tables.
 */
import PgBoss from "pg-boss";
import type { DbHandle } from "@/db/client";
import { logger } from "@/lib/platform/logger";

/**
 * pg's own limits on pg-boss's pool (pg-boss hands its options to pg.Pool; its types do not list
 * them), so in an outage its polls fail fast and heal: connect, the server-side statement, the
 * client-side wait (a silently dropped network), TCP keepalive.
 */
const PG_POOL_LIMITS = {
  connectionTimeoutMillis: 3_000,
  idleTimeoutMillis: 60_000,
  statement_timeout: 60_000,
  query_timeout: 65_000,
  keepAlive: true,
} as Record<string, unknown>;

export async function startJobBoss(handle: DbHandle): Promise<PgBoss> {
  // A completed wake-up is worth nothing: archived after an hour (not pg-boss's 12), the job table
  // the sweeper scans for wake-ups on the way stays small.
  const bossOptions = { supervise: true, schedule: false, archiveCompletedAfterSeconds: 3600 };
  const boss =
    handle.kind === "pglite"
      ? new PgBoss({ db: { executeSql: (text: string, values?: unknown[]) => handle.execute(text, values) } as never, ...bossOptions })
      : // Its own few connections, to PostgreSQL itself when DATABASE_URL is a pooler in transaction
        // mode (which would refuse the statement_timeout these set when connecting).
        new PgBoss({ connectionString: handle.directUrl ?? handle.url, max: 3, ...PG_POOL_LIMITS, ...bossOptions });
  boss.on("error", (error) => logger.warn({ err: error }, "pg-boss error"));
  await boss.start();
  return boss;
}
