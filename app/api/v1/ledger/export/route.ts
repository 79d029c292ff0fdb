import { apiRoute } from "@/lib/api/route";
import { exportFormatSchema } from "@/lib/export/export-format";
import { exportResponse } from "@/lib/export/export-response";
import { LEDGER_EXPORT_COLUMNS, ledgerExportPages } from "@/lib/hook-ledger/ledger-export";
import { ledgerFiltersSchema, resolveLedgerFilters } from "@/lib/hook-ledger/ledger-filters";

const ledgerExportQuerySchema = ledgerFiltersSchema.extend(exportFormatSchema.shape);

export const GET = apiRoute({ role: "viewer", query: ledgerExportQuerySchema }, async ({ db, query }) => {
  const { format, ...filters } = query;
  const pages = ledgerExportPages(db, await resolveLedgerFilters(db, filters));
  return exportResponse({ format, name: "hookplane-ledger", columns: LEDGER_EXPORT_COLUMNS, pages });
});
