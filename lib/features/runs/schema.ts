/**
 * What the runs feature takes and answers, declared once. Its answers: a run as the server builds
 * it (db/queries/runs.ts `runToApi`), which the API and the stream's `run` message send and the
 * browser reads with the same type, and its events as the query selects them. Its inputs: a run to
 * start, the runs filters (the list, its export and the dashboard's links), the paging of a run's
 * events and ledger, and the server actions' fields.
 */
import { z } from "zod";
import type { listRunEventsAfter } from "@/db/queries/run-events";
import type { RunApi } from "@/db/queries/runs";
import { RUN_STATUSES } from "@/db/schema";
import type { Json } from "@/lib/platform/api/json";
import { cursorTimeSchema, listQuerySchema } from "@/lib/platform/api/list-query";
import { personReferenceSchema } from "@/lib/platform/auth/person-reference";
import { exportFormatSchema } from "@/lib/platform/export/export-format";
import { codeHookIdsSchema } from "@/lib/core/agent/agent-spec";
import { OUTCOMES } from "@/lib/core/hooks/events";
import { PG_INT_MAX, pgDateSchema, uuidSchema } from "@/lib/core/safe-input";

/** A run as GET /api/v1/runs/{id}, the runs list and the stream's `run` message send it. */
export type RunResponse = Json<RunApi>;

/**
 * One stored event of a run as GET /api/v1/runs/{id}/events pages it (the stream's `event` message
 * carries the same fields); narrow its payload by type with `isEventOf` (lib/core/hooks/event-payloads.ts).
 */
export type RunEventResponse = Json<Awaited<ReturnType<typeof listRunEventsAfter>>[number]>;

/** POST /api/v1/runs: start a run of an agent (run-service.ts `startRun`). */
export const startRunSchema = z.object({
  agent: z.string().min(1, "name the agent (id or name)"),
  prompt: z.string().min(1, "give the run a prompt").max(100_000),
  /**
   * Standard Agents' prompt-level hook list: the operator code hooks for this run, overriding the
   * agent's `codeHooks`. Left out, the agent's apply; `[]` runs none.
   */
  codeHooks: codeHookIdsSchema.optional(),
});
export type StartRunRequest = z.infer<typeof startRunSchema>;

/** The dashboard's start form: the agent and the prompt. */
export const startRunFormSchema = startRunSchema.pick({ agent: true, prompt: true });

/** The server actions on one run (cancel, re-run, delete): its uuid, from the form. */
export const runRefSchema = z.object({ id: z.string() });

/**
 * The runs filters of the query string (api.md), shared by the runs list, the runs export and the
 * dashboard's links, so a filtered list and its export always select the same runs (run-filters.ts
 * resolves them).
 */
export const runFiltersSchema = z.object({
  agent: z.string().optional(),
  status: z.enum(RUN_STATUSES).optional(),
  outcome: z.enum(OUTCOMES).optional(),
  tool: z.string().optional(),
  blocked: z.enum(["true", "false"]).transform((v) => v === "true").optional(),
  q: z.string().max(200).optional(),
  from: pgDateSchema.optional(),
  to: pgDateSchema.optional(),
  minCost: z.coerce.number().min(0).optional(),
  /** A person's runs: their user id or email. */
  actor: personReferenceSchema.optional(),
});
export type RunFiltersQuery = z.infer<typeof runFiltersSchema>;

/** GET /api/v1/runs: the filters, a page at a time, newest first. */
export const runListQuerySchema = listQuerySchema(z.object({ createdAt: cursorTimeSchema, id: uuidSchema }).strict()).extend(runFiltersSchema.shape);

/** GET /api/v1/runs/export: the filters and the file's format. */
export const runExportQuerySchema = runFiltersSchema.extend(exportFormatSchema.shape);

/** GET /api/v1/runs/{id}/events: the events after a seq, or the last few. */
export const runEventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).max(PG_INT_MAX).default(0),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** Instead of paging from `after`: the last N events (a run's recent context). */
  tail: z.coerce.number().int().min(1).max(200).optional(),
});

/** GET /api/v1/runs/{id}/hooks: the run's hook ledger rows written after one. */
export const runLedgerQuerySchema = z.object({
  /** The id of the last row the caller has: the rows written after it. */
  after: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
  /** Left out: every row after `after` (as before paging existed). */
  limit: z.coerce.number().int().min(1).max(5000).optional(),
});
