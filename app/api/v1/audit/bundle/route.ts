import { apiRoute } from "@/lib/platform/api/route";
import { publicUrl } from "@/lib/platform/config/public-url";
import { exportResponse } from "@/lib/platform/export/export-response";
import { chainBundleLines } from "@/lib/features/audit/chain-bundle";
import { bundleQuerySchema } from "@/lib/features/audit/schema";
import { LEDGER_KEYS_PATH } from "@/lib/platform/security/ledger-signing-key";

/**
 * One chain's bundle, for `hookplane audit verify --bundle <file>` offline (format:
 * lib/features/audit/chain-bundle.ts), streamed page by page. Instance admins: unlike the verify
 * report, it carries the rows' content, and the chain holds every project's rows.
 */
export const GET = apiRoute({ role: "instance", query: bundleQuerySchema }, async ({ db, query }) =>
  exportResponse({
    format: "ndjson",
    name: `hookplane-${query.table.replace("_", "-")}-bundle`,
    columns: [],
    pages: chainBundleLines(db, { table: query.table, keysUrl: `${publicUrl()}${LEDGER_KEYS_PATH}` }),
  }),
);
