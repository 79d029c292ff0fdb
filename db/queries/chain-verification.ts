/**
 * Verification of a hash chain (hash-chain.ts says how the chains are made): the walk from the
 * oldest remaining row, the signed heads on the way, and the newest signed head on its own.
 */
import { and, asc, count, eq, gte, lte } from "drizzle-orm";
import { chainHash, GENESIS_HASH } from "@/lib/core/audit/chain-hash";
import type { BrokenLink, ChainedTable, ChainReport, SignedHeadReport } from "@/lib/core/audit/chain-report";
import type { ChainPublicKey, SignedStatement } from "@/lib/core/audit/chain-signature";
import { anchorStatement, gapStatement, headStatement, signatureProblem } from "@/lib/core/audit/chain-statements";
import { ledgerSigningKey } from "@/lib/platform/security/ledger-signing-key";
import type { Db } from "../client";
import { chainGaps, chainLinks, chainSeals } from "../schema";
import { chainHead, chainTable, contentOf, latestChainAnchor, latestChainSeal, linkedTo, rowHashesAt, sealedRowsAfter, sealsBetween, strayRow, VERIFY_PAGE } from "./hash-chain";

type Gap = typeof chainGaps.$inferSelect;
type Seal = typeof chainSeals.$inferSelect;

/** The gaps that start in [from, to], oldest first (deleted runs' positions: db/queries/run-removal.ts). */
async function gapsBetween(db: Db, table: ChainedTable, from: number, to: number): Promise<Gap[]> {
  return db
    .select()
    .from(chainGaps)
    .where(and(eq(chainGaps.tableName, table), gte(chainGaps.firstSeq, from), lte(chainGaps.firstSeq, to)))
    .orderBy(asc(chainGaps.firstSeq));
}

/** The signed heads at positions in [from, to], oldest first. */
/**
 * Walks the sealed rows in chain order from the oldest remaining one (linked to retention's
 * anchor, or to GENESIS_HASH) and names the first that does not link: a changed row (its content
 * no longer hashes to what is stored) or the row after a gap (a deleted row). The positions of a
 * deleted run's rows are stepped over by the hash its chain_gaps row kept: the row after them must
 * link to it, so only those rows, and only as a whole, can have gone.
 *
 * On the way, every signed head must verify with this instance's ledger key and hold the hash the
 * chain has at its position: rows changed and rehashed from there on (which the links alone cannot
 * show) break at the first head after them, and a head past the last row shows the newest rows
 * removed. The anchor and gaps must carry a valid signature, or none (written before signing).
 */
export async function verifyChain(db: Db, params: { table: ChainedTable }): Promise<ChainReport> {
  const { table } = params;
  const t = chainTable(table);
  const key = ledgerSigningKey().publicKey;
  // Heads signed after the walk began vouch for rows it may not have read: they wait for the next check.
  const signedUpTo = (await latestChainSeal(db, { table }))?.chainSeq ?? 0;
  const anchor = await latestChainAnchor(db, { table });
  let expectedSeq = (anchor?.chainSeq ?? 0) + 1;
  let previous = anchor?.hash ?? GENESIS_HASH;
  let firstBroken: BrokenLink | undefined;
  let after = anchor?.chainSeq ?? Number.MIN_SAFE_INTEGER;
  const removedRuns = new Set<string>();
  let removedRows = 0;
  let heads = 0;
  let unsigned = 0;
  /** The position of the last signed head that held: a rehash is somewhere after it. */
  let vouched = anchor?.chainSeq ?? 0;
  const broken = (link: Omit<BrokenLink, "table">) => (firstBroken ??= { table, ...link });
  const checkSigned = (what: string, statement: SignedStatement, signed: { keyId: string | null; signature: string | null }, position: number) => {
    if (signed.signature === null) {
      unsigned++;
      return;
    }
    const problem = signatureProblem(key, what, statement, signed);
    if (problem) broken({ id: null, position, expectedHash: "", storedHash: statement.hash, problem });
  };
  /**
   * The signed heads up to `position`, whose hash the chain holds as `hash` (a row's, a gap's
   * last, the anchor's). Heads below it lie inside a deleted run's positions, or below the anchor:
   * their rows are gone, so only their signature is checked.
   */
  const seals: Seal[] = [];
  const checkSealsThrough = (position: number, hash: string, id: number | null) => {
    while (!firstBroken && seals.length > 0 && seals[0].chainSeq <= position) {
      const seal = seals.shift()!;
      heads++;
      const what = `the signed head at position ${seal.chainSeq} (signed at ${seal.signedAt.toISOString()})`;
      const problem =
        signatureProblem(key, what, headStatement(seal), seal) ??
        (seal.chainSeq === position && seal.hash !== hash
          ? `${what} holds another hash than the chain: a row at positions ${vouched + 1}–${position} was changed and the hashes after it recomputed since it was signed`
          : undefined);
      if (problem) broken({ id: seal.chainSeq === position ? id : null, position: seal.chainSeq, expectedHash: seal.hash, storedHash: seal.chainSeq === position ? hash : "", problem });
      else if (seal.chainSeq === position) vouched = position;
    }
  };
  if (anchor) {
    checkSigned(`the retention anchor at position ${anchor.chainSeq}`, anchorStatement(anchor), anchor, anchor.chainSeq);
    seals.push(...(await sealsBetween(db, { table, from: anchor.chainSeq, to: anchor.chainSeq })));
    checkSealsThrough(anchor.chainSeq, anchor.hash, null);
  }
  /** Steps over the gaps that start where the chain stands now. */
  const skipGaps = (gaps: Gap[]) => {
    while (gaps.length > 0 && gaps[0].firstSeq < expectedSeq) gaps.shift();
    while (!firstBroken && gaps.length > 0 && gaps[0].firstSeq === expectedSeq) {
      const gap = gaps.shift()!;
      const what = `the gap at positions ${gap.firstSeq}–${gap.lastSeq} (deleted run ${gap.runId})`;
      checkSigned(what, gapStatement(gap), gap, gap.firstSeq);
      if (!firstBroken && gap.signature !== null && gap.prevHash !== null) {
        // The rows before the gap must still hash to what they did when the run was deleted.
        if (gap.prevHash !== previous) {
          broken({
            id: null,
            position: gap.firstSeq,
            expectedHash: gap.prevHash,
            storedHash: previous,
            problem: `${what} links from another hash than the rows before it reach: a row at positions ${vouched + 1}–${gap.firstSeq - 1} was changed and the hashes after it recomputed since the run was deleted`,
          });
          return;
        }
        vouched = gap.lastSeq;
      }
      previous = gap.hash;
      removedRows += gap.lastSeq - gap.firstSeq + 1;
      removedRuns.add(gap.runId);
      expectedSeq = gap.lastSeq + 1;
      checkSealsThrough(gap.lastSeq, gap.hash, null);
    }
  };
  while (!firstBroken) {
    const page = await sealedRowsAfter(db, table, after, VERIFY_PAGE);
    const last = page.length < VERIFY_PAGE ? Number.MAX_SAFE_INTEGER : page[page.length - 1].__seq;
    const gaps = await gapsBetween(db, table, expectedSeq, last);
    seals.push(...(await sealsBetween(db, { table, from: after + 1, to: Math.min(last, signedUpTo) })));
    for (const row of page) {
      const position = row.__seq;
      skipGaps(gaps);
      if (firstBroken) break;
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
        broken({ id: row.id as number, position, expectedHash, storedHash: row.__hash, problem });
        break;
      }
      previous = row.__hash;
      expectedSeq++;
      checkSealsThrough(position, row.__hash, row.id as number);
      if (firstBroken) break;
    }
    // Gaps after the newest row: a deleted run's rows were the newest.
    if (!firstBroken && page.length < VERIFY_PAGE) skipGaps(gaps);
    if (page.length < VERIFY_PAGE) break;
    after = page[page.length - 1].__seq;
  }
  // A signed head past everything the chain holds: its newest rows were removed.
  if (!firstBroken && seals.length > 0) {
    const seal = seals[0];
    broken({
      id: null,
      position: seal.chainSeq,
      expectedHash: seal.hash,
      storedHash: "",
      problem: `the signed head at position ${seal.chainSeq} (signed at ${seal.signedAt.toISOString()}) says the chain reached it, but the rows at positions ${expectedSeq}–${seal.chainSeq} are missing: the newest rows were removed`,
    });
  }
  // Rows the sealer went past that no link names are not part of the chain the walk reads: rows
  // retention deleted put back, or rows written below the chain's horizon by hand.
  if (!firstBroken) {
    const stray = await strayRow(db, table);
    if (stray) {
      firstBroken = {
        table,
        id: stray.id,
        position: stray.position ?? 0,
        expectedHash: "",
        storedHash: stray.hash ?? "",
        problem: "the sealer went past this row (retention deleted it, or it was written by hand), yet no link of the chain names it",
      };
    }
  }
  const [all] = await db.select({ n: count() }).from(t);
  const [sealed] = await db.select({ n: count() }).from(chainLinks).innerJoin(t, linkedTo(table)).where(eq(chainLinks.tableName, table));
  const counts = { sealed: sealed.n, all: all.n };
  const head = await chainHead(db, table);
  const signedHead = await newestSignedHead(db, table, key);
  return {
    rows: counts.sealed,
    unsealed: counts.all - counts.sealed,
    ...(head.seq > 0 ? { head: { position: head.seq, hash: head.hash } } : {}),
    ...(anchor ? { anchor: { position: anchor.chainSeq, hash: anchor.hash, before: anchor.before.toISOString() } } : {}),
    ...(removedRows > 0 ? { removed: { rows: removedRows, runs: removedRuns.size } } : {}),
    ...(signedHead ? { signedHead } : {}),
    signatures: { heads, unsigned },
    ...(firstBroken ? { firstBroken } : {}),
  };
}

/**
 * The newest signed head, checked on its own (the walk may have stopped before it): signed by
 * `key`, and holding the hash stored at its position (a row's, a gap's last, the anchor's).
 */
async function newestSignedHead(db: Db, table: ChainedTable, key: ChainPublicKey): Promise<SignedHeadReport | undefined> {
  const seal = await latestChainSeal(db, { table });
  if (!seal) return undefined;
  const rowHash = (await rowHashesAt(db, table, [seal.chainSeq])).get(seal.chainSeq);
  const [gap] = await db
    .select({ hash: chainGaps.hash })
    .from(chainGaps)
    .where(and(eq(chainGaps.tableName, table), eq(chainGaps.lastSeq, seal.chainSeq)))
    .limit(1);
  const anchor = await latestChainAnchor(db, { table });
  const stored = rowHash ?? gap?.hash ?? (anchor?.chainSeq === seal.chainSeq ? anchor.hash : undefined);
  const valid = signatureProblem(key, "", headStatement(seal), seal) === undefined && stored === seal.hash;
  return { position: seal.chainSeq, hash: seal.hash, signedAt: seal.signedAt.toISOString(), keyId: seal.keyId, valid };
}
