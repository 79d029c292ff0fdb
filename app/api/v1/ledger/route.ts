import { listHookLedger } from "@/db/queries/hook-invocations";
import { paginate } from "@/lib/platform/api/cursor";
import { listQuerySchema, serialKeySchema } from "@/lib/platform/api/list-query";
import { apiRoute } from "@/lib/platform/api/route";
import { ledgerFiltersSchema, resolveLedgerFilters } from "@/lib/features/audit/ledger-filters";

const ledgerListQuerySchema = listQuerySchema(serialKeySchema).extend(ledgerFiltersSchema.shape);

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
