/**
 * Deleting one run on purpose (DELETE /api/v1/runs/{id}, the run page's button): the run row, its
 * events, transcript, approvals and its hook ledger rows. The ledger is a hash chain, so its rows
 * leave the middle of it: each run of consecutive positions they held becomes a chain_gaps row
 * (first and last position, the last one's hash), which the next row links to and verify steps over
 * (db/queries/hash-chain.ts). The database's guard accepts exactly that shape: rows of a run that is
 * gone, each inside a gap of that run (drizzle/0015_retention.sql). Each gap is signed with the
 * instance's ledger key (lib/core/audit/chain-signature.ts).
 */
import { and, asc, count, eq, sql } from "drizzle-orm";
import { signWithLedgerKey } from "@/lib/platform/security/ledger-signing-key";
import type { Db } from "../client";
import { approvals, chainGaps, chainLinks, hookInvocations, runEvents, runMessages, runs } from "../schema";
import { gapStatement } from "@/lib/core/audit/chain-statements";
import { chainHashesAt, linkedTo, lockChain } from "./hash-chain";
import type { RunRow } from "./runs";

export interface RemovedRun {
  run: RunRow;
  events: number;
  messages: number;
  approvals: number;
  ledgerRows: number;
  gaps: number;
}

/** Consecutive positions, as [first, last, hash of last] runs. */
function islands(rows: { seq: number; hash: string }[]): { first: number; last: number; hash: string }[] {
  const out: { first: number; last: number; hash: string }[] = [];
  for (const row of rows) {
    const open = out.at(-1);
    if (open && open.last + 1 === row.seq) {
      open.last = row.seq;
      open.hash = row.hash;
    } else {
      out.push({ first: row.seq, last: row.seq, hash: row.hash });
    }
  }
  return out;
}

export class UnsealedLedgerRows extends Error {}

/**
 * The run's rows and its ledger rows, in `tx` (the caller's audited transaction), holding the
 * ledger chain's lock. The run must be finished (`finished`: false leaves it and returns
 * undefined), its ledger sealed first (sealChain), and its events mostly gone already
 * (deleteEventsOfRuns, in batches): what is left goes with the run row, by trigger. Undefined when
 * the project has no such run (or it is not finished).
 */
export async function removeFinishedRun(tx: Db, params: { projectId: string; runId: string; events: number }): Promise<RemovedRun | undefined> {
  await lockChain(tx, "hook_invocations", true);
  const [leftEvents] = await tx.select({ n: count() }).from(runEvents).where(eq(runEvents.runId, params.runId));
  const [messages] = await tx.select({ n: count() }).from(runMessages).where(eq(runMessages.runId, params.runId));
  const [approvalCount] = await tx.select({ n: count() }).from(approvals).where(eq(approvals.runId, params.runId));
  const [run] = await tx
    .delete(runs)
    .where(and(eq(runs.id, params.runId), eq(runs.projectId, params.projectId), eq(runs.status, "finished")))
    .returning();
  if (!run) return undefined;
  const rows = await tx
    .select({ seq: chainLinks.chainSeq, hash: chainLinks.hash })
    .from(hookInvocations)
    .leftJoin(chainLinks, linkedTo("hook_invocations"))
    .where(eq(hookInvocations.runId, params.runId))
    .orderBy(asc(chainLinks.chainSeq));
  const unsealed = rows.filter((r) => r.seq === null).length;
  if (unsealed > 0) throw new UnsealedLedgerRows(`${unsealed} ledger rows of run ${params.runId} are not sealed yet`);
  const sealed = rows as { seq: number; hash: string }[];
  const gaps = islands(sealed);
  // What each gap's first row linked to (another run's row, an earlier gap, the anchor), kept and
  // signed with the gap so the rows before it stay bound to a signature.
  const linkedFrom = await chainHashesAt(tx, { table: "hook_invocations", positions: gaps.map((g) => g.first - 1) });
  for (let i = 0; i < gaps.length; i += 500) {
    await tx.insert(chainGaps).values(
      gaps.slice(i, i + 500).map((g) => ({
        tableName: "hook_invocations",
        runId: params.runId,
        firstSeq: g.first,
        lastSeq: g.last,
        hash: g.hash,
        prevHash: linkedFrom.get(g.first - 1) ?? null,
        // Signed, so a bundle's verifier can tell this gap from one invented to hide rows.
        ...signWithLedgerKey(
          gapStatement({ tableName: "hook_invocations", firstSeq: g.first, lastSeq: g.last, prevHash: linkedFrom.get(g.first - 1) ?? null, hash: g.hash, runId: params.runId }),
        ),
      })),
    );
  }
  if (sealed.length > 0) {
    await tx.execute(sql`delete from hook_invocations where run_id = ${params.runId}`);
    // Their links go with them (inside the gaps just written).
    await tx.execute(sql`delete from chain_links where table_name = 'hook_invocations' and chain_seq = any(${`{${sealed.map((r) => r.seq).join(",")}}`}::bigint[])`);
  }
  return { run, events: params.events + leftEvents.n, messages: messages.n, approvals: approvalCount.n, ledgerRows: sealed.length, gaps: gaps.length };
}
