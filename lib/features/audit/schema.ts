/**
 * What the audit feature answers, declared once: the ledger search's rows as the query selects them
 * (db/queries/hook-invocations.ts `listHookLedger`), sent by GET /api/v1/ledger and read by the
 * ledger search page with the same type.
 */
import type { HookLedgerRow } from "@/db/queries/hook-invocations";
import type { Json } from "@/lib/platform/api/json";

/** One row of the ledger search (GET /api/v1/ledger `items`): a hook's decision with its run's agent. */
export type LedgerSearchRow = Json<HookLedgerRow>;
