/**
 * `hookplane audit verify` and the Audit page's integrity panel: seal what has been appended, then
 * walk both chains. `ok` is false when either names a broken row.
 */
import type { Db } from "@/db/client";
import { sealChain, verifyChain, type ChainReport } from "@/db/queries/hash-chain";

export interface IntegrityReport {
  ok: boolean;
  audit: ChainReport;
  ledger: ChainReport;
}

export async function checkRecordIntegrity(db: Db): Promise<IntegrityReport> {
  await sealChain(db, { table: "audit_log" });
  await sealChain(db, { table: "hook_invocations" });
  const audit = await verifyChain(db, { table: "audit_log" });
  const ledger = await verifyChain(db, { table: "hook_invocations" });
  return { ok: !audit.firstBroken && !ledger.firstBroken, audit, ledger };
}
