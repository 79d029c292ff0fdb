import { and, eq, inArray, isNull, lt, not, or, sql } from "drizzle-orm";
import type { Db } from "../client";
import { runs } from "../schema";

/**
 * Claims a run for one worker. A run has at most one live claim; a worker that dies stops
 * renewing, its claim lapses, and the sweeper hands the run to another worker.
 */
export async function claimRun(db: Db, params: { id: string; owner: string; ttlMs: number }) {
  const [row] = await db
    .update(runs)
    .set({ leaseOwner: params.owner, leaseExpiresAt: sql`now() + ${`${params.ttlMs} milliseconds`}::interval` })
    .where(
      and(
        eq(runs.id, params.id),
        sql`${runs.status} <> 'finished'`,
        or(isNull(runs.leaseOwner), lt(runs.leaseExpiresAt, sql`now()`), eq(runs.leaseOwner, params.owner)),
      ),
    )
    .returning();
  return row;
}

/** Extends every claim this worker holds; returns the runs it still owns. */
export async function renewLeases(db: Db, params: { owner: string; ids: string[]; ttlMs: number }) {
  if (params.ids.length === 0) return [];
  const rows = await db
    .update(runs)
    .set({ leaseExpiresAt: sql`now() + ${`${params.ttlMs} milliseconds`}::interval` })
    .where(and(inArray(runs.id, params.ids), eq(runs.leaseOwner, params.owner)))
    .returning({ id: runs.id });
  return rows.map((r) => r.id);
}

export async function releaseRun(db: Db, params: { id: string; owner: string }) {
  await db
    .update(runs)
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(runs.id, params.id), eq(runs.leaseOwner, params.owner)));
}

/** On an embedded start no other process can hold a claim: whatever was held died with us. */
export async function releaseAllLeases(db: Db) {
  await db.update(runs).set({ leaseOwner: null, leaseExpiresAt: null }).where(sql`${runs.leaseOwner} is not null`);
}

/**
 * Runs that need a worker and have none: started but unclaimed or with a lapsed claim, queued with
 * no wake-up on the way (the enqueue after createRun never happened, or the process that fetched
 * the wake-up died before claiming the run), parked on an approval that is now settled, or parked
 * and asked to cancel. A run that already has a wake-up waiting in the queue is left alone: it is
 * merely waiting for a free slot, and a second wake-up would only be drained as a duplicate.
 */
export async function listOrphanedRuns(
  db: Db,
  params: {
    /** pg-boss queue of the wake-ups, whose jobs carry the run id as singleton key. */
    queue: string;
    /** A queued run younger than this is still being enqueued by whoever created it. */
    queuedOlderThanMs: number;
    /** A wake-up fetched (active) longer ago than this and whose run is still unclaimed was lost with its process. */
    fetchedOlderThanMs: number;
  },
) {
  const unclaimed = or(isNull(runs.leaseOwner), lt(runs.leaseExpiresAt, sql`now()`));
  // Aliased by hand: drizzle leaves columns unqualified in a one-table select.
  const wakeUpOnTheWay = sql`exists (
    select 1 from pgboss.job j
    where j.name = ${params.queue} and j.singleton_key = "runs"."id"::text
      and (j.state < 'active' or (j.state = 'active' and j.started_on > now() - ${`${params.fetchedOlderThanMs} milliseconds`}::interval))
  )`;
  const rows = await db
    .select({ id: runs.id })
    .from(runs)
    .where(
      and(
        unclaimed,
        // An outside session (Claude Code, /ingest/events) runs elsewhere; no worker may pick it up.
        isNull(runs.externalSessionId),
        or(
          eq(runs.status, "running"),
          and(eq(runs.status, "queued"), lt(runs.createdAt, sql`now() - ${`${params.queuedOlderThanMs} milliseconds`}::interval`)),
          and(
            eq(runs.status, "waiting_approval"),
            or(
              eq(runs.cancelRequested, true),
              sql`not exists (select 1 from approvals a where a.run_id = "runs"."id" and a.status = 'pending')`,
            ),
          ),
        ),
        not(wakeUpOnTheWay),
      ),
    )
    .limit(100);
  return rows.map((r) => r.id);
}

export async function requestCancel(db: Db, params: { id: string }) {
  const [row] = await db
    .update(runs)
    .set({ cancelRequested: true })
    .where(and(eq(runs.id, params.id), sql`${runs.status} <> 'finished'`))
    .returning({ id: runs.id, status: runs.status, leaseOwner: runs.leaseOwner });
  return row;
}

/** Counts one more execution that could not be recorded; returns the new count. */
export async function recordRunFailure(db: Db, params: { id: string }): Promise<number> {
  const [row] = await db
    .update(runs)
    .set({ failures: sql`${runs.failures} + 1` })
    .where(eq(runs.id, params.id))
    .returning({ failures: runs.failures });
  return row?.failures ?? 0;
}
