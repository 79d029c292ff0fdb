import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { signInFailures } from "../schema";

export interface AttemptPolicy {
  /** Attempts counted before a lock starts (at least 2). */
  free: number;
  /** The longest lock; each counted attempt past `free` doubles it from one second. */
  maxLockMs: number;
  /** A key idle this long starts counting again from one. */
  forgetAfterMs: number;
}

export interface CountedAttempt {
  /** False when the key was already locked: the attempt was refused and not counted. */
  counted: boolean;
  failures: number;
  /** How long the key stays locked from now (0 when it is not locked). */
  waitMs: number;
}

/**
 * Counts one attempt against `key`, unless the key is locked, in a single statement: the lock is
 * read and set under the row lock of the upsert, so parallel attempts cannot all pass a check made
 * before any of them is counted. Every SET expression reads the row as it was before this attempt.
 * A counted attempt leaves its own id on the row; a refused one leaves the row as it was. (Not a
 * timestamp: two attempts can share a clock tick, and PGlite's clock is coarse.)
 */
export async function countSignInAttempt(db: Db, params: { key: string; policy: AttemptPolicy }): Promise<CountedAttempt> {
  const f = signInFailures;
  const { free, maxLockMs, forgetAfterMs } = params.policy;
  const attemptId = randomUUID();
  const locked = sql`${f.lockedUntil} is not null and ${f.lockedUntil} > now()`;
  const next = sql`(case when ${f.lastFailureAt} < now() - ${forgetAfterMs}::float8 * interval '1 millisecond' then 1 else ${f.failures} + 1 end)`;
  const [row] = await db
    .insert(f)
    .values({ key: params.key, failures: 1, lastFailureAt: sql`now()`, lockedUntil: null, lastAttemptId: attemptId })
    .onConflictDoUpdate({
      target: f.key,
      set: {
        failures: sql`case when ${locked} then ${f.failures} else ${next} end`,
        lastFailureAt: sql`case when ${locked} then ${f.lastFailureAt} else now() end`,
        lastAttemptId: sql`case when ${locked} then ${f.lastAttemptId} else ${attemptId}::uuid end`,
        lockedUntil: sql`case when ${locked} then ${f.lockedUntil}
          when ${next} >= ${free}::int then now() + least(${maxLockMs}::float8, 1000 * power(2, ${next} - ${free}::int)) * interval '1 millisecond'
          else null end`,
      },
    })
    .returning({
      failures: f.failures,
      counted: sql<boolean>`${f.lastAttemptId} is not distinct from ${attemptId}::uuid`,
      waitMs: sql<number>`coalesce(greatest(0, ceil(extract(epoch from (${f.lockedUntil} - now())) * 1000)), 0)::float8`,
    });
  return { counted: Boolean(row.counted), failures: row.failures, waitMs: Number(row.waitMs) };
}

/**
 * Takes back one counted attempt (it succeeded, or it was refused on another key), lifting a lock
 * only that attempt could have started.
 */
export async function uncountSignInAttempt(db: Db, params: { key: string; policy: AttemptPolicy }) {
  const f = signInFailures;
  await db
    .update(f)
    .set({
      failures: sql`greatest(${f.failures} - 1, 0)`,
      lockedUntil: sql`case when ${f.failures} - 1 < ${params.policy.free}::int then null else ${f.lockedUntil} end`,
    })
    .where(eq(f.key, params.key));
}

export async function clearSignInFailures(db: Db, params: { key: string }) {
  await db.delete(signInFailures).where(eq(signInFailures.key, params.key));
}
