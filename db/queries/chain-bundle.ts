/**
 * What a chain's bundle holds (lib/features/audit/chain-bundle.ts writes it out), read page by page
 * in chain order up to a signed head: every sealed row's hashed content, the gaps of deleted runs,
 * and the signed heads, each at its position.
 *
 * Each page is read in one repeatable-read transaction, so a page's rows, gaps and heads are one
 * state of the chain; between pages the export holds nothing (a download may be slow, and on
 * PGlite a held transaction would stop every other statement). A run deleted while the export
 * runs may take rows of a page already sent: its gap then comes on a later page starting before
 * that page, which the verifier accepts (the rows it did get were checked).
 */
import { and, asc, eq, gt, gte, lte } from "drizzle-orm";
import type { Db } from "../client";
import { chainGaps, chainSeals } from "../schema";
import { contentOf, sealedRowsAfter, type ChainedTable } from "./hash-chain";

const BUNDLE_PAGE = 2_000;

export type ChainBundleEntry =
  | { type: "row"; position: number; hash: string; content: Record<string, unknown> }
  | {
      type: "gap";
      firstPosition: number;
      lastPosition: number;
      previousHash: string | null;
      hash: string;
      runId: string;
      keyId: string | null;
      signature: string | null;
    }
  | { type: "seal"; position: number; hash: string; signedAt: string; keyId: string; signature: string };

function entryPosition(entry: ChainBundleEntry): number {
  return entry.type === "gap" ? entry.firstPosition : entry.position;
}

/**
 * The entries after position `from` (the anchor's, or 0) up to `to` (the bundle's last signed
 * head), a page at a time, by position; at one position the row or gap comes before the head that
 * signs it. The head at `from` itself (one vouching for the anchor) comes first.
 */
export async function* chainBundlePages(db: Db, params: { table: ChainedTable; from: number; to: number }): AsyncGenerator<ChainBundleEntry[]> {
  const { table, to } = params;
  const sentGaps = new Set<number>();
  let after = params.from;
  let first = true;
  for (;;) {
    const { entries, pageEnd } = await db.transaction(
      async (tx) => {
        // No upper bound in SQL: with one, the planner reads the whole range and sorts it (a bitmap
        // scan) rather than walking the index for one page; rows past `to` are dropped here.
        const fetched = await sealedRowsAfter(tx, table, after, BUNDLE_PAGE);
        const rows = fetched.filter((row) => row.__seq <= to);
        const pageEnd = rows.length === BUNDLE_PAGE ? rows[rows.length - 1].__seq : to;
        const gaps = await tx
          .select()
          .from(chainGaps)
          .where(and(eq(chainGaps.tableName, table), gt(chainGaps.lastSeq, after), lte(chainGaps.firstSeq, pageEnd)))
          .orderBy(asc(chainGaps.firstSeq));
        const seals = await tx
          .select()
          .from(chainSeals)
          .where(and(eq(chainSeals.tableName, table), first ? gte(chainSeals.chainSeq, after) : gt(chainSeals.chainSeq, after), lte(chainSeals.chainSeq, pageEnd)))
          .orderBy(asc(chainSeals.chainSeq));
        const entries: ChainBundleEntry[] = [
          ...rows.map((row): ChainBundleEntry => ({ type: "row", position: row.__seq, hash: row.__hash, content: contentOf(table, row) })),
          ...gaps
            .filter((gap) => !sentGaps.has(gap.id) && sentGaps.add(gap.id))
            .map((gap): ChainBundleEntry => ({
              type: "gap",
              firstPosition: gap.firstSeq,
              lastPosition: gap.lastSeq,
              previousHash: gap.prevHash,
              hash: gap.hash,
              runId: gap.runId,
              keyId: gap.keyId,
              signature: gap.signature,
            })),
          ...seals.map((seal): ChainBundleEntry => ({
            type: "seal",
            position: seal.chainSeq,
            hash: seal.hash,
            signedAt: seal.signedAt.toISOString(),
            keyId: seal.keyId,
            signature: seal.signature,
          })),
        ];
        // Stable: rows, then gaps, then heads at equal positions, as concatenated.
        entries.sort((a, b) => entryPosition(a) - entryPosition(b));
        return { entries, pageEnd };
      },
      { isolationLevel: "repeatable read", accessMode: "read only" },
    );
    first = false;
    if (entries.length > 0) yield entries;
    if (pageEnd >= to) return;
    after = pageEnd;
  }
}
