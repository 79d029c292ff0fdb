import { apiRoute } from "@/lib/platform/api/route";
import { checkRecordIntegrity } from "@/lib/features/audit/integrity-check";

/**
 * Seals, then checks the audit log's and the hook ledger's hash chains: `{ok, audit, ledger}`, each
 * `{rows, unsealed, head?, anchor?, firstBroken?}`. Admins (of any project, so `hookplane audit
 * verify` works with an admin token): the chains are one for the whole instance, every project's
 * rows are links of them, so whether they were tampered with is every project admin's question. The
 * answer carries positions, hashes and a broken row's numeric id, never a row's content.
 */
export const GET = apiRoute({ role: "admin" }, async ({ db }) => checkRecordIntegrity(db));
