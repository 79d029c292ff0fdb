/**
 * Retention of a hash chain: whole UTC days deleted as a prefix of the chain, each batch after an
 * anchor that records the hash the oldest remaining row links to (hash-chain.ts).
 */
import { performance } from "node:perf_hooks";
import { and, asc, count, desc, eq, gte, lt, lte, sql } from "drizzle-orm";
import type { ChainedTable } from "@/lib/core/audit/chain-report";
import type { Db } from "../client";
import { chainLinks } from "../schema";
import { restAfter, withoutFlushWait } from "../statement-pacing";
import { chainTable, insertChainAnchor, linkedTo, latestChainAnchor, lockChain, sealChain } from "./hash-chain";

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
  const t = chainTable(table);
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
      // A link lives as long as its row, so the links say which rows there are and when they came.
      const links = eq(chainLinks.tableName, table);
      const [firstKept] = await tx
        .select({ seq: chainLinks.chainSeq })
        .from(chainLinks)
        .where(and(links, gte(chainLinks.rowCreatedAt, before)))
        .orderBy(asc(chainLinks.chainSeq))
        .limit(1);
      // The batch ends at its last present row before the first one kept (a position in between
      // may be a deleted run's gap, which has no row to anchor to).
      const eligible = and(links, firstKept ? lt(chainLinks.chainSeq, firstKept.seq) : undefined);
      const present = () => tx.select({ seq: chainLinks.chainSeq, hash: chainLinks.hash }).from(chainLinks).where(eligible);
      const [nth] = await present().orderBy(asc(chainLinks.chainSeq)).offset(batchRows - 1).limit(1);
      const last = nth ?? (await present().orderBy(desc(chainLinks.chainSeq)).limit(1)).at(0);
      if (!last || last.seq <= (previous?.chainSeq ?? 0)) return undefined;
      const upTo = and(links, lte(chainLinks.chainSeq, last.seq));
      const [{ n }] = await tx.select({ n: count() }).from(chainLinks).innerJoin(t, linkedTo(table)).where(upTo);
      await insertChainAnchor(tx, { table, position: last.seq, hash: last.hash, before, deletedRows: n });
      await tx.delete(t).where(sql`(${t.id}, ${t.createdAt}) in (select row_id, row_created_at from chain_links where ${upTo})`);
      await tx.delete(chainLinks).where(upTo);
      return { n, anchor: { position: last.seq, hash: last.hash } };
    });
    if (!batch) break;
    deleted += batch.n;
    anchor = batch.anchor;
    await restAfter(started);
    if (batch.n < batchRows) break;
  }
  return { deleted, before, ...(anchor ? { anchor } : {}) };
}
