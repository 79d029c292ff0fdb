import { listHookLedger } from "@/db/queries/hook-invocations";
import { paginate } from "@/lib/platform/api/cursor";
import { apiRoute } from "@/lib/platform/api/route";
import { resolveLedgerFilters } from "@/lib/features/audit/ledger-filters";
import { ledgerListQuerySchema } from "@/lib/features/audit/schema";

/** The project's hook ledger, newest first. */
export const GET = apiRoute({ role: "viewer", query: ledgerListQuerySchema }, async ({ db, query, principal }) => {
  const { limit, cursor, ...filters } = query;
  const rows = await listHookLedger(db, {
    ...(await resolveLedgerFilters(db, principal.projectId, filters)),
    limit: limit + 1,
    beforeId: cursor?.id,
  });
  return paginate(rows, limit, (r) => ({ id: r.id }));
});
