/**
 * `hookplane audit verify` and the Audit page's integrity panel: seal what has been appended, then
 * walk both chains. `ok` is false when either names a broken row. `signingKey` is the key the
 * signed heads were checked with, the one /.well-known/hookplane-ledger-keys publishes.
 */
import type { Db } from "@/db/client";
import { verifyChain } from "@/db/queries/chain-verification";
import { sealChain, signVerifiedHead, type ChainedTable, type ChainReport } from "@/db/queries/hash-chain";
import type { ChainPublicKey } from "@/lib/core/audit/chain-signature";
import { ledgerSigningKey } from "@/lib/platform/security/ledger-signing-key";

export interface IntegrityReport {
  ok: boolean;
  audit: ChainReport;
  ledger: ChainReport;
  signingKey: ChainPublicKey;
}

/**
 * One chain, sealed and walked. Rows sealed before signing existed have no signed head: once the
 * walk found them intact, their head is signed (then walked again, to report it), so from then on
 * they are vouched for like the rest.
 */
export async function checkChain(db: Db, table: ChainedTable): Promise<ChainReport> {
  await sealChain(db, { table });
  const report = await verifyChain(db, { table });
  const unsigned = report.head && (report.signedHead?.position ?? 0) < report.head.position;
  if (!report.firstBroken && unsigned && (await signVerifiedHead(db, { table, head: report.head! }))) return verifyChain(db, { table });
  return report;
}

export async function checkRecordIntegrity(db: Db): Promise<IntegrityReport> {
  const audit = await checkChain(db, "audit_log");
  const ledger = await checkChain(db, "hook_invocations");
  return { ok: !audit.firstBroken && !ledger.firstBroken, audit, ledger, signingKey: ledgerSigningKey().publicKey };
}
