/**
 * The hash chains of the append-only tables: how rows are hashed and sealed, and the signed heads.
 * Verification is chain-verification.ts, retention chain-retention.ts; what is hashed and signed
 * needs no database and lives in lib/core/audit.
 *
 * Why a sealer rather than hashing in the INSERT: each link needs the previous row's hash, so
 * hashing at insert time would make every writer (several worker processes, ~800 ledger rows/s at
 * the target load) queue on one lock for the chain head. Instead writers append rows and never
 * wait; `sealChain` takes one advisory lock per table, reads the rows not sealed yet in id order,
 * hashes them in JS and writes each one's position and hash to chain_links, one narrow row each
 * (a row itself is never updated: an UPDATE of an indexed column rewrote the whole row, with an
 * entry in each of its indexes, and was most of what a ledger row cost). The periodic sealer
 * (lib/features/audit/chain-sealer.ts) runs this in every process with a try-lock; verification
 * and retention seal first and wait for the lock. `npm run bench:chain` measures the cost per row.
 *
 * Chain order is id order, up to a horizon no transaction can still add a row under: the highest
 * id committed when the sealer looked, once every transaction in progress then has ended. Each
 * INSERT holds its transaction id before it takes a row's id (drizzle/0036_chain_links.sql), so a
 * row committed late is one whose transaction was in progress then, and is waited for, never
 * skipped. The periodic sealer checks the horizon of its last look (a second ago: no writer ever
 * waits); a seal that must cover every committed row (verification, retention) waits the moment
 * the transactions in progress take to end. chain_state keeps how far each chain has come.
 *
 * Hashing happens in JS over the values as read back (not as written), so one implementation of
 * canonical JSON (lib/core/audit/chain-hash.ts) serves PGlite and PostgreSQL alike.
 *
 * Every seal also signs the head it reached (chain_seals, in the same transaction), and retention's
 * anchors and a deleted run's gaps are signed when written, with the instance's ledger key
 * (lib/core/audit/chain-signature.ts says what and why). A hash chain alone shows a changed row
 * only until someone recomputes the hashes after it; a signed head cannot be recomputed without the
 * key, which is never in the database.
 */
import { and, asc, desc, eq, getTableName, gt, gte, isNotNull, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import { canonicalValue, chainHashOfCanonical, GENESIS_HASH } from "@/lib/core/audit/chain-hash";
import type { ChainedTable } from "@/lib/core/audit/chain-report";
import { ledgerSigningKey, signWithLedgerKey } from "@/lib/platform/security/ledger-signing-key";
import { executeStatement, isEmbedded, queryRows, type Db } from "../client";
import { auditLog, chainAnchors, chainGaps, chainLinks, chainSeals, chainState, hookInvocations } from "../schema";

// The chained tables and the report types are plain data in lib/core; their names stay importable from here.
export { CHAINED_TABLES } from "@/lib/core/audit/chain-report";
export type { BrokenLink, ChainedTable, ChainReport, SignedHeadReport } from "@/lib/core/audit/chain-report";

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
      hookInvocations.actorKey, hookInvocations.actor, hookInvocations.modification,
    ],
  },
};

/**
 * Hashed columns added after rows were sealed without them (drizzle/0022_ledger_actor.sql,
 * 0031_modify_verb.sql): a null
 * one is left out of the hashed content, as if the column did not exist, so every older row still
 * verifies; a value is hashed like any column, so who acted cannot be changed or removed unseen.
 */
export const HASHED_WHEN_PRESENT_COLUMNS = [hookInvocations.actorKey.name, hookInvocations.actor.name, hookInvocations.modification.name] as const;
const HASHED_WHEN_PRESENT: ReadonlySet<string> = new Set(HASHED_WHEN_PRESENT_COLUMNS);
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

/** The drizzle table of a chain (the bundle export reads it: db/queries/chain-bundle.ts). */
export function chainTable(table: ChainedTable): ChainTable {
  return HASHED[table].table;
}

const SEAL_BATCH = 2_000;
/** Rows a verification reads per page (chain-verification.ts). */
export const VERIFY_PAGE = 2_000;

/**
 * How each column is read for hashing, keyed by its SQL name. jsonb as text (parsed in JS: the
 * drivers differ in how they hand jsonb over), timestamps as UTC text with microseconds (a JS Date
 * would drop them, and the session time zone would change the text).
 */
export function contentFields(table: ChainedTable): Record<string, SQL | PgColumn> {
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

/** A sealed row as the checks read it: its content fields (contentFields), its position and its hash. */
export type SealedRow = Record<string, unknown> & { __seq: number; __hash: string };

/** A row of `table` joined with its link: the row's id and creation time (its partition). */
export function linkedTo(table: ChainedTable) {
  const t = chainTable(table);
  return and(eq(chainLinks.tableName, table), eq(t.id, chainLinks.rowId), eq(t.createdAt, chainLinks.rowCreatedAt));
}

/** A page of `table`'s sealed rows after position `after`, in chain order (a verification's, a bundle's). */
export async function sealedRowsAfter(db: Db, table: ChainedTable, after: number, limit: number): Promise<SealedRow[]> {
  const t = chainTable(table);
  return (await db
    .select({ ...contentFields(table), __seq: chainLinks.chainSeq, __hash: chainLinks.hash })
    .from(chainLinks)
    .innerJoin(t, linkedTo(table))
    .where(and(eq(chainLinks.tableName, table), gt(chainLinks.chainSeq, after)))
    .orderBy(asc(chainLinks.chainSeq))
    .limit(limit)) as SealedRow[];
}

/** The hash of the sealed row at each of `positions` whose row is still there. */
export async function rowHashesAt(db: Db, table: ChainedTable, positions: number[]): Promise<Map<number, string>> {
  const hashes = new Map<number, string>();
  if (positions.length === 0) return hashes;
  const t = chainTable(table);
  const rows = await db
    .select({ seq: chainLinks.chainSeq, hash: chainLinks.hash })
    .from(chainLinks)
    .innerJoin(t, linkedTo(table))
    .where(and(eq(chainLinks.tableName, table), sql`${chainLinks.chainSeq} = any(${`{${positions.join(",")}}`}::bigint[])`));
  for (const row of rows) hashes.set(row.seq, row.hash);
  return hashes;
}

/**
 * The oldest row the sealer went past that no link names (with the position and hash it holds
 * itself, if any: a row sealed before chain_links), or undefined. Such a row is outside the chain.
 */
export async function strayRow(db: Db, table: ChainedTable): Promise<{ id: number; position: number | null; hash: string | null } | undefined> {
  const t = chainTable(table);
  const [row] = await db
    .select({ id: t.id, position: t.chainSeq, hash: t.hash })
    .from(t)
    .where(
      and(
        sql`${t.id} <= (select s.sealed_through from chain_state s where s.table_name = ${table})`,
        sql`not exists (select 1 from chain_links l where l.table_name = ${table} and l.row_id = ${t.id})`,
      ),
    )
    .orderBy(asc(t.id))
    .limit(1);
  return row;
}

/** The newest link of `table`'s chain (its row may be gone with a deleted run: the link went with it then). */
async function lastLink(db: Db, table: ChainedTable): Promise<{ seq: number; hash: string } | undefined> {
  const [last] = await db
    .select({ seq: chainLinks.chainSeq, hash: chainLinks.hash })
    .from(chainLinks)
    .where(eq(chainLinks.tableName, table))
    .orderBy(desc(chainLinks.chainSeq))
    .limit(1);
  return last;
}

/** A row's hashed content, as chainHash takes it, from what contentFields read. */
export function contentOf(table: ChainedTable, row: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const column of HASHED[table].columns) {
    const value = row[column.name];
    if ((value === null || value === undefined) && HASHED_WHEN_PRESENT.has(column.name)) continue;
    content[column.name] = column.columnType === "PgJsonb" && typeof value === "string" ? JSON.parse(value) : (value ?? null);
  }
  return content;
}

/** A hashed column as the sealer reads it: its key as canonical JSON writes it, and how its value is taken. */
interface SealedField {
  /** `"name":`, written once. */
  member: string;
  /** jsonb, read as its text (a string in the array): parsed before it is written canonically. */
  json: boolean;
  /** A float: PostgreSQL writes NaN and ±Infinity in JSON as strings; the drivers read them as numbers. */
  float: boolean;
  /** Left out when null (HASHED_WHEN_PRESENT). */
  whenPresent: boolean;
}

interface SealRead {
  /** The hashed columns in canonical key order: the order of each row's values. */
  fields: SealedField[];
  /** Where the id and the creation time are among them. */
  idAt: number;
  createdAtAt: number;
  read: string;
}

const sealReads = new Map<ChainedTable, SealRead>();

/**
 * The sealer's read of unsealed rows, as SQL text (a statement of fixed text: prepared, not built
 * by drizzle per batch): each row as one JSON array of its hashed columns in canonical key order,
 * with the values contentFields reads (jsonb as its text, so a jsonb `null` stays apart from SQL
 * NULL; timestamps as UTC text with microseconds). One text field a row instead of one per column:
 * the driver's parse of 27 fields a row was most of the read (PGlite: 24 → 8 µs a row, JSON.parse
 * included).
 */
function sealRead(table: ChainedTable): SealRead {
  let found = sealReads.get(table);
  if (found) return found;
  const { table: t, columns } = HASHED[table];
  // Canonical JSON orders members by key, as Array.prototype.sort orders strings (canonicalJson).
  const sorted = [...columns].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const values = sorted.map((column) => {
    const name = `"${column.name}"`;
    if (column.columnType === "PgTimestamp") return `to_char(${name} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    if (column.columnType === "PgJsonb") return `${name}::text`;
    return name;
  });
  const fields = sorted.map((column) => ({
    member: `${JSON.stringify(column.name)}:`,
    json: column.columnType === "PgJsonb",
    float: column.columnType === "PgDoublePrecision" || column.columnType === "PgReal",
    whenPresent: HASHED_WHEN_PRESENT.has(column.name),
  }));
  // Rows past how far the chain has come, up to the horizon, that no link names yet (one copied
  // from a row's own chain_seq when chain_links came, for a row sealed out of id order then).
  const name = `"${getTableName(t)}"`;
  const read =
    `select json_build_array(${values.join(", ")})::text as r from ${name} where ${name}."id" > $1 and ${name}."id" <= $2 ` +
    // The links' side bounded by the same range, so the planner reads only those (not every link).
    `and not exists (select 1 from chain_links l where l.table_name = '${table}' and l.row_id = ${name}."id" and l.row_id > $1 and l.row_id <= $2) ` +
    `order by ${name}."id" limit ${SEAL_BATCH}`;
  found = { fields, idAt: sorted.findIndex((c) => c.name === "id"), createdAtAt: sorted.findIndex((c) => c.name === "created_at"), read };
  sealReads.set(table, found);
  return found;
}

/** A row as the sealer reads it: its id, its creation time (as contentFields reads it) and its hashed values in canonical key order. */
export interface UnsealedRow {
  id: number;
  createdAt: string;
  values: unknown[];
}

/**
 * A row as the sealer read it (sealRead), in canonical JSON: the same text as
 * canonicalJson(contentOf(table, row)), which verification computes, written straight from the
 * values without a content object or a sort of its keys (the sealer hashes every row; hash-chain-seal.db.test
 * compares the two).
 */
export function sealedRowCanonical(table: ChainedTable, row: UnsealedRow): string {
  const { fields } = sealRead(table);
  let out = "";
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    let value = row.values[i];
    if (value === null || value === undefined) {
      if (field.whenPresent) continue;
      value = null;
    } else if (typeof value === "string" && field.json) value = JSON.parse(value);
    else if (typeof value === "string" && field.float) value = Number(value);
    out += `${out ? "," : "{"}${field.member}${canonicalValue(value)}`;
  }
  return out ? `${out}}` : "{}";
}

/** The rows a seal reads, ids in (after, upTo], in id order: as sealedRowCanonical takes them. */
export async function unsealedRows(db: Db, table: ChainedTable, range: { after: number; upTo: number }): Promise<UnsealedRow[]> {
  const { read, idAt, createdAtAt } = sealRead(table);
  const rows = await executeStatement<{ r: string }>(db, read, [range.after, range.upTo]);
  return rows.map(({ r }) => {
    const values = JSON.parse(r) as unknown[];
    return { id: Number(values[idAt]), createdAt: values[createdAtAt] as string, values };
  });
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

/**
 * Writes retention's anchor, signed, and forgets the signed heads below it: they signed rows that
 * are gone now, so nothing is left to check them against (the database refuses any other DELETE).
 * A head exactly at the anchor stays: it vouches for the anchor's hash.
 */
export async function insertChainAnchor(
  tx: Db,
  params: { table: ChainedTable; position: number; hash: string; before: Date; deletedRows: number },
): Promise<void> {
  const { table, position, hash, before } = params;
  const signature = signWithLedgerKey({ kind: "anchor", table, position, hash, before: before.toISOString() });
  await tx.insert(chainAnchors).values({ tableName: table, chainSeq: position, hash, before, deletedRows: params.deletedRows, ...signature });
  await tx.delete(chainSeals).where(and(eq(chainSeals.tableName, table), lt(chainSeals.chainSeq, position)));
}

/**
 * The last link as one statement: the newest of the last link, retention's latest anchor and a
 * deleted run's latest gap, the genesis at 0 when there is none; at the same position a link
 * before an anchor before a gap.
 */
const CHAIN_HEAD = `select h.seq, h.hash from (
    select 0::bigint as seq, '${GENESIS_HASH}'::text as hash, 0 as rank
    union all (select chain_seq, hash, 1 from chain_links where table_name = $1 order by chain_seq desc limit 1)
    union all (select chain_seq, hash, 2 from chain_anchors where table_name = $1 order by chain_seq desc limit 1)
    union all (select last_seq, hash, 3 from chain_gaps where table_name = $1 order by last_seq desc limit 1)
  ) h order by h.seq desc, h.rank limit 1`;

/**
 * The last link: the newest sealed row, or what took its place when it was deleted: retention's
 * anchor (every sealed row went) or a deleted run's gap (the newest rows were that run's).
 */
export async function chainHead(db: Db, table: ChainedTable): Promise<{ seq: number; hash: string }> {
  const [head] = await executeStatement<{ seq: string | number; hash: string }>(db, CHAIN_HEAD, [table]);
  return { seq: Number(head.seq), hash: head.hash };
}

/** How far a chain's sealer has come (0 before its first seal) and its head, as one statement. */
const CHAIN_STAND = `select coalesce((select s.sealed_through from chain_state s where s.table_name = $1), 0) as sealed_through, head.seq, head.hash
  from (${CHAIN_HEAD}) head`;

/**
 * What a seal writes, under the chain's lock, only if the chain stands where the seal read it
 * ($7: how far it had come, $8 and $9: its head); `written` says whether it did. The links of
 * the rows sealed (four array parameters rather than 4 × 2,000 placeholders: one short statement
 * to parse) and how far the chain has come now. The signed head is a statement after it: the
 * database checks that a head names a link (drizzle/0036), which a statement does not see of its
 * own inserts.
 */
const SEAL_WRITE = `with stands as (
    select 1 from (${CHAIN_STAND}) now where now.sealed_through = $7::bigint and now.seq = $8::bigint and now.hash = $9::text
  ), links as (
    insert into chain_links (table_name, chain_seq, row_id, row_created_at, hash)
    select $1, v.seq, v.id, v.created_at, v.hash
    from unnest($3::bigint[], $4::bigint[], $5::timestamptz[], $6::text[]) as v(seq, id, created_at, hash)
    where exists (select 1 from stands)
  ), state as (
    insert into chain_state (table_name, sealed_through) select $1, $2::bigint where exists (select 1 from stands)
    on conflict (table_name) do update set sealed_through = excluded.sealed_through
  )
  select exists (select 1 from stands) as written`;

/**
 * The signed head: the chain reached `position` with `hash`, now. A head already signed at that
 * position (a row unsealed and sealed again by hand) is kept: verify then compares it with the row.
 */
async function insertSignedHead(tx: Db, table: ChainedTable, head: { position: number; hash: string }): Promise<void> {
  const signedAt = new Date();
  const signature = signWithLedgerKey({ kind: "head", table, position: head.position, hash: head.hash, signedAt: signedAt.toISOString() });
  await tx
    .insert(chainSeals)
    .values({ tableName: table, chainSeq: head.position, hash: head.hash, signedAt, ...signature })
    .onConflictDoNothing();
}

/** Ids a batch looks through at most: a batch's read stays small even far below the horizon. */
const SEAL_WINDOW = 8 * SEAL_BATCH;

/** Where a batch starts: how far the chain had come, its head, and the rows past it up to `upTo`. */
interface BatchRead {
  after: number;
  head: { seq: number; hash: string };
  upTo: number;
  rows: UnsealedRow[];
}

async function readBatch(reader: Db, table: ChainedTable, horizon: number): Promise<BatchRead> {
  const [stand] = await executeStatement<{ sealed_through: string | number; seq: string | number; hash: string }>(reader, CHAIN_STAND, [table]);
  const after = Number(stand.sealed_through);
  const head = { seq: Number(stand.seq), hash: stand.hash };
  if (after >= horizon) return { after, head, upTo: after, rows: [] };
  const upTo = Math.min(horizon, after + SEAL_WINDOW);
  return { after, head, upTo, rows: await unsealedRows(reader, table, { after, upTo }) };
}

/**
 * Hashes a batch's rows onto the head it read and writes their links under the lock `tx` holds,
 * if the chain still stands where the batch read it; the rows sealed and whether the chain has
 * come to the horizon, or undefined when it had moved and nothing was written.
 */
async function writeBatch(tx: Db, table: ChainedTable, horizon: number, batch: BatchRead): Promise<{ sealed: number; done: boolean } | undefined> {
  const { after, head, upTo, rows } = batch;
  // A batch short of full went through its range: every id up to its end is linked or was never committed.
  const reached = rows.length < SEAL_BATCH ? upTo : rows[rows.length - 1].id;
  let { seq, hash } = head;
  const ids: number[] = [];
  const seqs: number[] = [];
  const hashes: string[] = [];
  const times: string[] = [];
  for (const row of rows) {
    hash = chainHashOfCanonical(hash, sealedRowCanonical(table, row));
    ids.push(row.id);
    seqs.push(++seq);
    hashes.push(hash);
    times.push(row.createdAt);
  }
  const list = (values: unknown[]) => `{${values.join(",")}}`;
  const [{ written }] = await executeStatement<{ written: boolean }>(tx, SEAL_WRITE, [table, reached, list(seqs), list(ids), list(times), list(hashes), after, head.seq, head.hash]);
  if (!written) return undefined;
  if (rows.length > 0) await insertSignedHead(tx, table, { position: seq, hash });
  return { sealed: rows.length, done: reached >= horizon };
}

/**
 * One batch, its head signed: the rows past how far the chain has come, up to `horizon` and at
 * most SEAL_WINDOW ids on. Undefined when another process holds the lock and `wait` is off; else
 * the rows sealed and whether the chain has come to the horizon.
 *
 * On PGlite the rows are read (with the hook calls' next group commit) and hashed before the lock
 * is taken, and only the write holds it: PGlite is one connection, so while a batch held its
 * transaction every hook call waited, also while the batch hashed its rows in JavaScript and, on
 * PGlite's own thread, for this thread's turn between its statements. Reading outside the lock is
 * safe: the rows up to the horizon are final (no transaction can still add one), never updated,
 * and deleted only once sealed, under the lock (retention, a run's removal); whatever seals,
 * anchors or leaves a gap moves how far the chain has come or its head, which the write checks
 * under the lock: then it writes nothing, and the batch is read again. On PostgreSQL a held lock
 * stops only the other sealers, and every web and worker process runs one: there the batch is read
 * under the lock, so they do not all read and hash the same rows for one of them to write.
 */
async function sealBatch(db: Db, table: ChainedTable, wait: boolean, horizon: number): Promise<{ sealed: number; done: boolean } | undefined> {
  // The key first: a process that cannot load it (HOOKPLANE_SECRET_KEY, secret.key) seals nothing
  // rather than rows no head vouches for.
  ledgerSigningKey();
  const early = isEmbedded(db) ? await readBatch(db, table, horizon) : undefined;
  if (early && early.after >= horizon) return { sealed: 0, done: true };
  return db.transaction(async (tx) => {
    if (!(await lockChain(tx, table, wait))) return undefined;
    const batch = early ?? (await readBatch(tx, table, horizon));
    if (batch.after >= horizon) return { sealed: 0, done: true };
    // Moved since an early read (another seal, an anchor, a gap): read again.
    return (await writeBatch(tx, table, horizon, batch)) ?? { sealed: 0, done: false };
  });
}

/**
 * The horizon a seal may go up to: the highest id committed when the chain was looked at, once no
 * transaction in progress then is left (the row it adds could have a lower id). `wait`: look now and
 * wait for those transactions (at most CHAIN_HORIZON_WAIT_MS); otherwise the look the last call took
 * is used when it has passed, and a new one kept for the next. Undefined when nothing is final past
 * how far the chain has come.
 */
async function chainHorizon(db: Db, table: ChainedTable, wait: boolean): Promise<number | undefined> {
  const t = `"${getTableName(chainTable(table))}"`;
  // Transactions in progress in the snapshot of `xmax`'s look, other than this one, all below it.
  const passed = (xmax: string) =>
    sql`not exists (select 1 from pg_snapshot_xip(pg_current_snapshot()) x where x < ${xmax}::xid8 and x is distinct from pg_current_xact_id_if_assigned())`;
  const [look] = await queryRows<{ sealed_through: string | number | null; horizon_id: string | number | null; horizon_xmax: string | null; newest: string | number; xmax: string }>(
    db,
    sql`select s.sealed_through, s.horizon_id, s.horizon_xmax, (select coalesce(max(id), 0) from ${sql.raw(t)}) as newest,
               pg_snapshot_xmax(pg_current_snapshot())::text as xmax
        from (select 1) one left join chain_state s on s.table_name = ${table}`,
  );
  const sealedThrough = Number(look.sealed_through ?? 0);
  const newest = Number(look.newest);
  if (wait) {
    if (newest <= sealedThrough) return undefined;
    const deadline = Date.now() + CHAIN_HORIZON_WAIT_MS;
    for (;;) {
      const [check] = await queryRows<{ passed: boolean }>(db, sql`select ${passed(look.xmax)} as passed`);
      if (check.passed) return newest;
      if (Date.now() > deadline) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  let final: number | undefined;
  if (look.horizon_id !== null && look.horizon_xmax !== null && Number(look.horizon_id) > sealedThrough) {
    const [check] = await queryRows<{ passed: boolean }>(db, sql`select ${passed(look.horizon_xmax)} as passed`);
    if (check.passed) final = Number(look.horizon_id);
  }
  // Keep this look for the next call, unless the one kept has not passed yet (it would never pass
  // while writers keep the chain busy, if each call replaced it).
  if (newest > sealedThrough && (final !== undefined || look.horizon_id === null || Number(look.horizon_id) <= sealedThrough)) {
    await db
      .insert(chainState)
      .values({ tableName: table, sealedThrough, horizonId: newest, horizonXmax: look.xmax })
      .onConflictDoUpdate({ target: chainState.tableName, set: { horizonId: newest, horizonXmax: look.xmax } });
  }
  return final;
}

/** How long a seal that must cover every committed row waits for the transactions in progress. */
export const CHAIN_HORIZON_WAIT_MS = 10_000;

/** Whether sealed rows lie past the newest signed head: rows sealed before signing existed, or by hand. */
export async function hasUnsignedRows(db: Db, params: { table: ChainedTable }): Promise<boolean> {
  const last = await lastLink(db, params.table);
  if (!last) return false;
  const seal = await latestChainSeal(db, params);
  return !seal || seal.chainSeq < last.seq;
}

/**
 * Signs `head`, a head verifyChain has just walked to and found intact, when no signed head covers
 * it: rows sealed before signing existed (an upgraded instance whose ledger is quiet). Only that
 * exact row, still holding that hash: signing whatever is newest would vouch for a row sealed by
 * hand since, unchecked. False when it signed nothing.
 */
export async function signVerifiedHead(db: Db, params: { table: ChainedTable; head: { position: number; hash: string } }): Promise<boolean> {
  const { table, head } = params;
  const t = HASHED[table].table;
  ledgerSigningKey();
  return db.transaction(async (tx) => {
    await lockChain(tx, table, true);
    const [signed] = await tx
      .select({ seq: chainSeals.chainSeq })
      .from(chainSeals)
      .where(and(eq(chainSeals.tableName, table), gte(chainSeals.chainSeq, head.position)))
      .limit(1);
    if (signed) return false;
    if ((await rowHashesAt(tx, table, [head.position])).get(head.position) !== head.hash) return false;
    await insertSignedHead(tx, table, head);
    return true;
  });
}

/**
 * Seals every row committed so far, in batches. `skipIfBusy` (the periodic sealer): return at once
 * when another process is sealing this table; it will reach these rows too, or the next tick will.
 */
export async function sealChain(db: Db, params: { table: ChainedTable; skipIfBusy?: boolean }): Promise<{ sealed: number; busy: boolean }> {
  // The common case of the periodic sealer is an idle table: one statement, no transaction or lock.
  const horizon = await chainHorizon(db, params.table, !params.skipIfBusy);
  if (horizon === undefined) return { sealed: 0, busy: false };
  let sealed = 0;
  for (;;) {
    const batch = await sealBatch(db, params.table, !params.skipIfBusy, horizon);
    if (batch === undefined) return { sealed, busy: true };
    sealed += batch.sealed;
    if (batch.done) return { sealed, busy: false };
  }
}

type Seal = typeof chainSeals.$inferSelect;

export async function sealsBetween(db: Db, params: { table: ChainedTable; from: number; to: number }): Promise<Seal[]> {
  return db
    .select()
    .from(chainSeals)
    .where(and(eq(chainSeals.tableName, params.table), gte(chainSeals.chainSeq, params.from), lte(chainSeals.chainSeq, params.to)))
    .orderBy(asc(chainSeals.chainSeq));
}

export async function latestChainSeal(db: Db, params: { table: ChainedTable }): Promise<Seal | undefined> {
  const [seal] = await db.select().from(chainSeals).where(eq(chainSeals.tableName, params.table)).orderBy(desc(chainSeals.chainSeq)).limit(1);
  return seal;
}

/**
 * The hash the chain holds at each of `positions`: a row's, or where its row is gone, the hash a
 * gap ending there or the anchor there kept (GENESIS_HASH at 0). A position with none is left out.
 */
export async function chainHashesAt(db: Db, params: { table: ChainedTable; positions: number[] }): Promise<Map<number, string>> {
  const { table, positions } = params;
  const hashes = new Map<number, string>();
  if (positions.length === 0) return hashes;
  if (positions.includes(0)) hashes.set(0, GENESIS_HASH);
  const list = `{${positions.join(",")}}`;
  for (const [seq, hash] of await rowHashesAt(db, table, positions)) hashes.set(seq, hash);
  const gaps = await db
    .select({ seq: chainGaps.lastSeq, hash: chainGaps.hash })
    .from(chainGaps)
    .where(and(eq(chainGaps.tableName, table), sql`${chainGaps.lastSeq} = any(${list}::bigint[])`));
  const anchor = await latestChainAnchor(db, { table });
  for (const gap of gaps) hashes.set(gap.seq, gap.hash);
  if (anchor && positions.includes(anchor.chainSeq)) hashes.set(anchor.chainSeq, anchor.hash);
  return hashes;
}
