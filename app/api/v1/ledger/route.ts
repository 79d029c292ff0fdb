import { listHookLedger } from "@/db/queries/hook-invocations";
import { paginate } from "@/lib/api/cursor";
import { listQuerySchema, serialKeySchema } from "@/lib/api/list-query";
import { apiRoute } from "@/lib/api/route";
import { ledgerFiltersSchema, resolveLedgerFilters } from "@/lib/hook-ledger/ledger-filters";

const ledgerListQuerySchema = listQuerySchema(serialKeySchema).extend(ledgerFiltersSchema.shape);

export const GET = apiRoute({ role: "viewer", query: ledgerListQuerySchema }, async ({ db, query }) => {
  const { limit, cursor, ...filters } = query;
  const rows = await listHookLedger(db, {
    ...(await resolveLedgerFilters(db, filters)),
    limit: limit + 1,
    beforeId: cursor?.id,
  });
  return paginate(rows, limit, (r) => ({ id: r.id }));
});
