import { apiRoute } from "@/lib/platform/api/route";
import { exportResponse } from "@/lib/platform/export/export-response";
import { LEDGER_EXPORT_COLUMNS, ledgerExportPages } from "@/lib/features/audit/ledger-export";
import { resolveLedgerFilters } from "@/lib/features/audit/ledger-filters";
import { ledgerExportQuerySchema } from "@/lib/features/audit/schema";

export const GET = apiRoute({ role: "viewer", query: ledgerExportQuerySchema }, async ({ db, query, principal }) => {
  const { format, ...filters } = query;
  const pages = ledgerExportPages(db, await resolveLedgerFilters(db, principal.projectId, filters));
  return exportResponse({ format, name: "hookplane-ledger", columns: LEDGER_EXPORT_COLUMNS, pages });
});
