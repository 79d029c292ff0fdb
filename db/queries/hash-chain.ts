/**
 * The hash chains of the append-only tables: sealing, verification and retention.
 *
 * Why a sealer rather than hashing in the INSERT: each link needs the previous row's hash, so
 * hashing at insert time would make every writer (several worker processes, ~800 ledger rows/s at
 * the target load) queue on one lock for the chain head. Instead writers append rows with
 * chain_seq and hash NULL, as before, and never wait; `sealChain` takes one advisory lock per table,
 * reads the unsealed rows in insertion (id) order, hashes them in JS and fills both columns in one
 * UPDATE per batch. Chain order is seal order: a row whose transaction commits late is sealed late,
 * never skipped, because the work list is "chain_seq is null", not "id above a watermark". The
 * periodic sealer (lib/features/audit/chain-sealer.ts) runs this in every process with a try-lock;
 * verification and retention seal first and wait for the lock. `npm run bench:chain` measures the
 * cost per row.
 *
 * Hashing happens in JS over the values as read back (not as written), so one implementation of
 * canonical JSON (lib/features/audit/chain-hash.ts) serves PGlite and PostgreSQL alike.
 */
import { performance } from "node:perf_hooks";
import { and, asc, count, desc, eq, gt, gte, isNotNull, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { chainHash, GENESIS_HASH } from "@/lib/features/audit/chain-hash";
import { queryRows, type Db } from "../client";
import { restAfter, withoutFlushWait } from "../statement-pacing";
import { auditLog, chainAnchors, chainGaps, hookInvocations } from "../schema";

export const CHAINED_TABLES = ["audit_log", "hook_invocations"] as const;
export type ChainedTable = (typeof CHAINED_TABLES)[number];

type ChainTable = typeof auditLog | typeof hookInvocations;

/**
 * The hashed columns of each table, fixed on purpose: a column added to a table later is not
 * hashed (old rows would stop verifying) until it is added here deliberately, with a way to tell
 * old rows from new. The integrity suite fails when a table has a column not listed here or in
 * CHAIN_COLUMNS, so that decision cannot be skipped.
 */
const HASHED: Record<ChainedTable, { table: ChainTable; lock: number; columns: PgColumn[] }> = {
  audit_log: {
    table: auditLog,
    lock: 7_240_121,
    columns: [auditLog.id, auditLog.actor, auditLog.action, auditLog.entityType, auditLog.entityId, auditLog.before, auditLog.after, auditLog.createdAt],
  },
  hook_invocations: {
    table: hookInvocations,
    lock: 7_240_122,
    columns: [
      hookInvocations.id, hookInvocations.runId, hookInvocations.eventSeq, hookInvocations.event, hookInvocations.hookKey,
      hookInvocations.hookVersion, hookInvocations.scope, hookInvocations.matched, hookInvocations.skipReason,
      hookInvocations.verdict, hookInvocations.reason, hookInvocations.mode, hookInvocations.action, hookInvocations.failed,
      hookInvocations.timedOut, hookInvocations.ignored, hookInvocations.approval, hookInvocations.exitCode,
      hookInvocations.stdout, hookInvocations.stderr, hookInvocations.output, hookInvocations.durationMs, hookInvocations.createdAt,
    ],
  },
};
/** The columns the chain itself fills. */
export const CHAIN_COLUMNS = ["chain_seq", "hash"] as const;

/**
 * Columns deliberately left out of the hash: `project_id` says where a row is listed (added by
 * drizzle/0016_projects.sql), not what happened; hashing it would have broken every older row.
 */
export const UNHASHED_COLUMNS: Record<ChainedTable, readonly string[]> = { audit_log: ["project_id"], hook_invocations: ["project_id"] };

export function hashedColumnNames(table: ChainedTable): string[] {
  return HASHED[table].columns.map((c) => c.name);
}

const SEAL_BATCH = 2_000;
const VERIFY_PAGE = 2_000;

/**
 * How each column is read for hashing, keyed by its SQL name. jsonb as text (parsed in JS: the
 * drivers differ in how they hand jsonb over), timestamps as UTC text with microseconds (a JS Date
 * would drop them, and the session time zone would change the text).
 */
function contentFields(table: ChainedTable): Record<string, SQL | PgColumn> {
  return Object.fromEntries(
    HASHED[table].columns.map((column) => {
      if (column.columnType === "PgJsonb") return [column.name, sql<string | null>`${column}::text`];
      if (column.columnType === "PgTimestamp") {
        return [column.name, sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`];
      }
      return [column.name, column];
    }),
  );
}

function contentOf(table: ChainedTable, row: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const column of HASHED[table].columns) {
    const value = row[column.name];
    content[column.name] = column.columnType === "PgJsonb" && typeof value === "string" ? JSON.parse(value) : (value ?? null);
  }
  return content;
}

export async function lockChain(db: Db, table: ChainedTable, wait: boolean): Promise<boolean> {
  const key = HASHED[table].lock;
  if (wait) {
    await db.execute(sql`select pg_advisory_xact_lock(${key})`);
    return true;
  }
  const rows = await queryRows<{ locked: boolean }>(db, sql`select pg_try_advisory_xact_lock(${key}) as locked`);
  return rows[0]?.locked === true;
}

export async function latestChainAnchor(db: Db, params: { table: ChainedTable }) {
  const [anchor] = await db
    .select()
    .from(chainAnchors)
    .where(eq(chainAnchors.tableName, params.table))
    .orderBy(desc(chainAnchors.chainSeq))
    .limit(1);
  return anchor;
}

async function latestChainGap(db: Db, table: ChainedTable) {
  const [gap] = await db.select().from(chainGaps).where(eq(chainGaps.tableName, table)).orderBy(desc(chainGaps.lastSeq)).limit(1);
  return gap;
}

/**
 * The last link: the newest sealed row, or what took its place when it was deleted: retention's
 * anchor (every sealed row went) or a deleted run's gap (the newest rows were that run's).
 */
async function chainHead(db: Db, table: ChainedTable): Promise<{ seq: number; hash: string }> {
  const t = HASHED[table].table;
  const [last] = await db.select({ seq: t.chainSeq, hash: t.hash }).from(t).where(isNotNull(t.chainSeq)).orderBy(desc(t.chainSeq)).limit(1);
  const anchor = await latestChainAnchor(db, { table });
  const gap = await latestChainGap(db, table);
  const links = [
    { seq: 0, hash: GENESIS_HASH },
    ...(last ? [{ seq: last.seq!, hash: last.hash! }] : []),
    ...(anchor ? [{ seq: anchor.chainSeq, hash: anchor.hash }] : []),
    ...(gap ? [{ seq: gap.lastSeq, hash: gap.hash }] : []),
  ];
  return links.reduce((a, b) => (b.seq > a.seq ? b : a));
}

/** One batch under the lock; undefined when another process holds it and `wait` is off. */
async function sealBatch(db: Db, table: ChainedTable, wait: boolean): Promise<number | undefined> {
  const t = HASHED[table].table;
  return db.transaction(async (tx) => {
    if (!(await lockChain(tx, table, wait))) return undefined;
    const rows = await tx.select(contentFields(table)).from(t).where(isNull(t.chainSeq)).orderBy(asc(t.id)).limit(SEAL_BATCH);
    if (rows.length === 0) return 0;
    let { seq, hash } = await chainHead(tx, table);
    const ids: number[] = [];
    const seqs: number[] = [];
    const hashes: string[] = [];
    const times: string[] = [];
    for (const row of rows as Record<string, unknown>[]) {
      hash = chainHash(hash, contentOf(table, row));
      ids.push(row.id as number);
      seqs.push(++seq);
      hashes.push(hash);
      times.push(row.created_at as string);
    }
    // Four array parameters rather than 4 × 2,000 placeholders: one short statement to parse. The
    // creation time (the ledger's partition key) lets each row's lookup go to its partition only.
    await tx.execute(sql`
      update ${t} set chain_seq = v.seq, hash = v.hash
      from unnest(${`{${ids.join(",")}}`}::bigint[], ${`{${seqs.join(",")}}`}::bigint[], ${`{${hashes.join(",")}}`}::text[], ${`{${times.join(",")}}`}::timestamptz[]) as v(id, seq, hash, created_at)
      where ${t.id} = v.id and ${t.createdAt} = v.created_at`);
    return rows.length;
  });
}

/**
 * Seals every row committed so far, in batches. `skipIfBusy` (the periodic sealer): return at once
 * when another process is sealing this table; it will reach these rows too, or the next tick will.
 */
export async function sealChain(db: Db, params: { table: ChainedTable; skipIfBusy?: boolean }): Promise<{ sealed: number; busy: boolean }> {
  // The common case of the periodic sealer is an idle table: one index probe, no transaction or lock.
  const t = HASHED[params.table].table;
  const [pending] = await db.select({ id: t.id }).from(t).where(isNull(t.chainSeq)).limit(1);
  if (!pending) return { sealed: 0, busy: false };
  let sealed = 0;
  for (;;) {
    const batch = await sealBatch(db, params.table, !params.skipIfBusy);
    if (batch === undefined) return { sealed, busy: true };
    sealed += batch;
    if (batch < SEAL_BATCH) return { sealed, busy: false };
  }
}

export interface BrokenLink {
  table: ChainedTable;
  id: number;
  /** The row's chain_seq. */
  position: number;
  /** What the hash should be given its predecessor's stored hash and its own content. */
  expectedHash: string;
  storedHash: string;
  problem: string;
}

export interface ChainReport {
  /** Sealed rows (the chain). */
  rows: number;
  /** Rows appended since the last seal, not covered by this check. */
  unsealed: number;
  /** The newest link: note it elsewhere to detect a later removal of the newest rows. */
  head?: { position: number; hash: string };
  /** Where the chain starts after retention. */
  anchor?: { position: number; hash: string; before: string };
  /** Positions whose rows went with a deleted run (chain_gaps), walked over by their recorded hash. */
  removed?: { rows: number; runs: number };
  firstBroken?: BrokenLink;
}

type Gap = typeof chainGaps.$inferSelect;

/** The gaps that start in [from, to], oldest first (deleted runs' positions: db/queries/run-removal.ts). */
async function gapsBetween(db: Db, table: ChainedTable, from: number, to: number): Promise<Gap[]> {
  return db
    .select()
    .from(chainGaps)
    .where(and(eq(chainGaps.tableName, table), gte(chainGaps.firstSeq, from), lte(chainGaps.firstSeq, to)))
    .orderBy(asc(chainGaps.firstSeq));
}

/**
 * Walks the sealed rows in chain order from the oldest remaining one (linked to retention's
 * anchor, or to GENESIS_HASH) and names the first that does not link: a changed row (its content
 * no longer hashes to what is stored) or the row after a gap (a deleted row). The positions of a
 * deleted run's rows are stepped over by the hash its chain_gaps row kept: the row after them must
 * link to it, so only those rows, and only as a whole, can have gone.
 */
export async function verifyChain(db: Db, params: { table: ChainedTable }): Promise<ChainReport> {
  const { table } = params;
  const t = HASHED[table].table;
  const anchor = await latestChainAnchor(db, { table });
  let expectedSeq = (anchor?.chainSeq ?? 0) + 1;
  let previous = anchor?.hash ?? GENESIS_HASH;
  let firstBroken: BrokenLink | undefined;
  let after = anchor?.chainSeq ?? Number.MIN_SAFE_INTEGER;
  const removedRuns = new Set<string>();
  let removedRows = 0;
  /** Steps over the gaps that start where the chain stands now. */
  const skipGaps = (gaps: Gap[]) => {
    while (gaps.length > 0 && gaps[0].firstSeq < expectedSeq) gaps.shift();
    while (gaps.length > 0 && gaps[0].firstSeq === expectedSeq) {
      const gap = gaps.shift()!;
      previous = gap.hash;
      removedRows += gap.lastSeq - gap.firstSeq + 1;
      removedRuns.add(gap.runId);
      expectedSeq = gap.lastSeq + 1;
    }
  };
  const fields = { ...contentFields(table), __seq: t.chainSeq, __hash: t.hash };
  while (!firstBroken) {
    const page = (await db
      .select(fields)
      .from(t)
      .where(and(isNotNull(t.chainSeq), gt(t.chainSeq, after)))
      .orderBy(asc(t.chainSeq))
      .limit(VERIFY_PAGE)) as (Record<string, unknown> & { __seq: number; __hash: string })[];
    const last = page.length < VERIFY_PAGE ? Number.MAX_SAFE_INTEGER : page[page.length - 1].__seq;
    const gaps = await gapsBetween(db, table, expectedSeq, last);
    for (const row of page) {
      const position = row.__seq;
      skipGaps(gaps);
      const expectedHash = chainHash(previous, contentOf(table, row));
      const problem =
        position !== expectedSeq
          ? position - 1 === expectedSeq
            ? `the row at position ${expectedSeq} is missing`
            : `the rows at positions ${expectedSeq}–${position - 1} are missing`
          : expectedHash !== row.__hash
            ? "its content does not match its hash: the row (or its hash) was changed after it was sealed"
            : undefined;
      if (problem) {
        firstBroken = { table, id: row.id as number, position, expectedHash, storedHash: row.__hash, problem };
        break;
      }
      previous = row.__hash;
      expectedSeq++;
    }
    // Gaps after the newest row: a deleted run's rows were the newest.
    if (!firstBroken && page.length < VERIFY_PAGE) skipGaps(gaps);
    if (page.length < VERIFY_PAGE) break;
    after = page[page.length - 1].__seq;
  }
  // The rows before the anchor were deleted by retention; rows below it that are still here are
  // not part of the chain the verifier walks, and are a break of their own.
  if (!firstBroken && anchor) {
    const [early] = await db
      .select({ id: t.id, seq: t.chainSeq, hash: t.hash })
      .from(t)
      .where(lte(t.chainSeq, anchor.chainSeq))
      .orderBy(asc(t.chainSeq))
      .limit(1);
    if (early) {
      firstBroken = {
        table,
        id: early.id,
        position: early.seq!,
        expectedHash: "",
        storedHash: early.hash!,
        problem: `retention deleted the rows up to position ${anchor.chainSeq}, yet this one is still here`,
      };
    }
  }
  const [counts] = await db
    .select({ sealed: count(t.chainSeq), all: count() })
    .from(t);
  const head = await chainHead(db, table);
  return {
    rows: counts.sealed,
    unsealed: counts.all - counts.sealed,
    ...(head.seq > 0 ? { head: { position: head.seq, hash: head.hash } } : {}),
    ...(anchor ? { anchor: { position: anchor.chainSeq, hash: anchor.hash, before: anchor.before.toISOString() } } : {}),
    ...(removedRows > 0 ? { removed: { rows: removedRows, runs: removedRuns.size } } : {}),
    ...(firstBroken ? { firstBroken } : {}),
  };
}

/** The UTC midnight at or before `date`: retention deletes whole days only. */
export function startOfUtcDay(date: Date): Date {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
}

/** Rows retention deletes in one transaction when it deletes row by row. */
export const CHAIN_DELETE_BATCH = 1_000;

/**
 * Retention: deletes the oldest rows created before the UTC midnight at or before `before`, as a
 * prefix of the chain, after recording in chain_anchors the hash the oldest remaining row links
 * to. The database's trigger accepts exactly this and no other DELETE. A row of an old day sealed
 * after a newer one (its transaction committed late) is kept until the chain before it goes too.
 * In batches of `batchRows`, each its own short transaction with its own anchor, so the sealer (which
 * waits for the chain's lock) and the database's other work are never held up for long.
 */
export async function deleteChainDaysBefore(
  db: Db,
  params: { table: ChainedTable; before: Date; batchRows?: number },
): Promise<{ deleted: number; before: Date; anchor?: { position: number; hash: string } }> {
  const { table } = params;
  const t = HASHED[table].table;
  const before = startOfUtcDay(params.before);
  const batchRows = params.batchRows ?? CHAIN_DELETE_BATCH;
  await sealChain(db, { table });
  let deleted = 0;
  let anchor: { position: number; hash: string } | undefined;
  for (;;) {
    const started = performance.now();
    const batch = await withoutFlushWait(db, async (tx) => {
      await lockChain(tx, table, true);
      const previous = await latestChainAnchor(tx, { table });
      const [firstKept] = await tx
        .select({ seq: t.chainSeq })
        .from(t)
        .where(and(isNotNull(t.chainSeq), gte(t.createdAt, before)))
        .orderBy(asc(t.chainSeq))
        .limit(1);
      // The batch ends at its last present row before the first one kept (a position in between
      // may be a deleted run's gap, which has no row to anchor to).
      const eligible = and(isNotNull(t.chainSeq), firstKept ? lt(t.chainSeq, firstKept.seq!) : undefined);
      const present = () => tx.select({ seq: t.chainSeq, hash: t.hash }).from(t).where(eligible);
      const [nth] = await present().orderBy(asc(t.chainSeq)).offset(batchRows - 1).limit(1);
      const last = nth ?? (await present().orderBy(desc(t.chainSeq)).limit(1)).at(0);
      if (!last || last.seq! <= (previous?.chainSeq ?? 0)) return undefined;
      const [{ n }] = await tx.select({ n: count() }).from(t).where(lte(t.chainSeq, last.seq!));
      await tx.insert(chainAnchors).values({ tableName: table, chainSeq: last.seq!, hash: last.hash!, before, deletedRows: n });
      await tx.delete(t).where(lte(t.chainSeq, last.seq!));
      return { n, anchor: { position: last.seq!, hash: last.hash! } };
    });
    if (!batch) break;
    deleted += batch.n;
    anchor = batch.anchor;
    await restAfter(started);
    if (batch.n < batchRows) break;
  }
  return { deleted, before, ...(anchor ? { anchor } : {}) };
}
