import { apiRoute } from "@/lib/platform/api/route";
import { checkRecordIntegrity } from "@/lib/features/audit/integrity-check";

/**
 * Seals, then checks the audit log's and the hook ledger's hash chains: `{ok, audit, ledger}`, each
 * `{rows, unsealed, head?, anchor?, firstBroken?}`. Admin only: it reads both tables whole, and the
 * answer to "has the record been tampered with" is the auditor's, not every viewer's.
 */
export const GET = apiRoute({ role: "admin" }, async ({ db }) => checkRecordIntegrity(db));
