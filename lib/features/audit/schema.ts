/**
 * What the audit feature takes and answers, declared once. Its answers, as the queries select them:
 * the ledger search's rows (db/queries/hook-invocations.ts `listHookLedger`, GET /api/v1/ledger),
 * the config change log's entries (db/queries/audit.ts `listAudit`, GET /api/v1/audit) and the
 * session search's runs (db/queries/runs.ts `runToApi`, GET /api/v1/runs), read by their pages with
 * these types, and the integrity check's report. Its inputs: the filters of the ledger and the
 * change log, and which chain to bundle.
 */
import { z } from "zod";
import type { listAudit } from "@/db/queries/audit";
import type { HookLedgerRow } from "@/db/queries/hook-invocations";
import type { RunApi } from "@/db/queries/runs";
import type { Json } from "@/lib/platform/api/json";
import { listQuerySchema, serialKeySchema } from "@/lib/platform/api/list-query";
import { personReferenceSchema } from "@/lib/platform/auth/person-reference";
import { exportFormatSchema } from "@/lib/platform/export/export-format";
import { CHAINED_TABLES } from "@/lib/core/audit/chain-report";
import { EVENT_NAMES } from "@/lib/core/hooks/events";
import { pgDateSchema } from "@/lib/core/safe-input";
import type { checkRecordIntegrity } from "./integrity-check";

/** One row of the ledger search (GET /api/v1/ledger `items`): a hook's decision with its run's agent. */
export type LedgerSearchRow = Json<HookLedgerRow>;

/** One entry of the config change log (GET /api/v1/audit `items`). */
export type AuditEntryResponse = Json<Awaited<ReturnType<typeof listAudit>>[number]>;

/**
 * One session of the session search: a run as GET /api/v1/runs lists it (the runs feature's
 * RunResponse, reached through the query, since audit does not depend on runs).
 */
export type SessionSearchRow = Json<RunApi>;

/** GET /api/v1/audit/verify: both hash chains sealed and walked, read by the integrity panel. */
export type IntegrityReportResponse = Json<Awaited<ReturnType<typeof checkRecordIntegrity>>>;

export const HOOK_VERDICTS = ["allow", "block", "skip"] as const;

/**
 * The hook ledger filters of the query string, shared by the ledger list and its export so both
 * select the same rows (ledger-filters.ts resolves them).
 */
export const ledgerFiltersSchema = z.object({
  /** The hook's id as written in its spec (`no-prod`), which is the ledger's hook key. */
  hook: z.string().max(200).optional(),
  event: z.enum(EVENT_NAMES as [string, ...string[]]).optional(),
  verdict: z.enum(HOOK_VERDICTS).optional(),
  matched: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  agent: z.string().optional(),
  runId: z.uuid().optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  q: z.string().max(200).optional(),
  /** Whose agents: a person's user id or email (their rows only, after their runs are gone too). */
  actor: personReferenceSchema.optional(),
});
export type LedgerFiltersQuery = z.infer<typeof ledgerFiltersSchema>;

/** GET /api/v1/ledger: the filters, a page at a time, newest first. */
export const ledgerListQuerySchema = listQuerySchema(serialKeySchema).extend(ledgerFiltersSchema.shape);

/** GET /api/v1/ledger/export: the filters and the file's format. */
export const ledgerExportQuerySchema = ledgerFiltersSchema.extend(exportFormatSchema.shape);

/** GET /api/v1/audit: the config change log's filters. */
export const auditQuerySchema = listQuerySchema(serialKeySchema).extend({
  entityType: z.string().max(100).optional(),
  entityId: z.string().max(200).optional(),
  actor: z.string().max(200).optional(),
  action: z.string().max(100).optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  /** `instance`: the instance-level entries (people, projects, providers, instance settings and hooks), for instance admins. */
  scope: z.enum(["project", "instance"]).default("project"),
});

/** GET /api/v1/audit/bundle: which hash chain to bundle for offline verification. */
export const bundleQuerySchema = z.object({ table: z.enum(CHAINED_TABLES).default("hook_invocations") });
