import { listHookLedger } from "@/db/queries/hook-invocations";
import { decodeCursor, paginate } from "@/lib/api/cursor";
import { listQuerySchema } from "@/lib/api/list-query";
import { apiRoute } from "@/lib/api/route";
import { ledgerFiltersSchema, resolveLedgerFilters } from "@/lib/hook-ledger/ledger-filters";

const ledgerListQuerySchema = listQuerySchema.extend(ledgerFiltersSchema.shape);

export const GET = apiRoute({ role: "viewer", query: ledgerListQuerySchema }, async ({ db, query }) => {
  const { limit, cursor, ...filters } = query;
  const rows = await listHookLedger(db, {
    ...(await resolveLedgerFilters(db, filters)),
    limit: limit + 1,
    beforeId: decodeCursor<{ id: number }>(cursor)?.id,
  });
  return paginate(rows, limit, (r) => ({ id: r.id }));
});
