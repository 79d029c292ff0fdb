/**
 * What the audit feature answers, declared once, as the queries select it: the ledger search's rows
 * (db/queries/hook-invocations.ts `listHookLedger`, GET /api/v1/ledger) and the config change log's
 * entries (db/queries/audit.ts `listAudit`, GET /api/v1/audit), read by their pages with these types.
 */
import type { listAudit } from "@/db/queries/audit";
import type { HookLedgerRow } from "@/db/queries/hook-invocations";
import type { Json } from "@/lib/platform/api/json";

/** One row of the ledger search (GET /api/v1/ledger `items`): a hook's decision with its run's agent. */
export type LedgerSearchRow = Json<HookLedgerRow>;

/** One entry of the config change log (GET /api/v1/audit `items`). */
export type AuditEntryResponse = Json<Awaited<ReturnType<typeof listAudit>>[number]>;
