/**
 * The WebSocket protocol of `/api/ws`, both directions, in one module the hub (server) and the
 * dashboard (browser) share: what a client may send (checked with zod on the server) and what the
 * server sends (typed for the browser). api.md describes it for scripts.
 */
import { z } from "zod";
import type { listRunHookInvocations } from "@/db/queries/hook-invocations";
import type { Json } from "@/lib/platform/api/json";

/** A run topic names a run's uuid exactly: anything else would reach the database as a bad uuid. */
export const TOPIC_PATTERN = /^(runs|approvals|run:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

export const clientMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("subscribe"),
    topic: z.string().regex(TOPIC_PATTERN, "topic is runs, approvals or run:<id>"),
    /** A seq is a PostgreSQL integer; a larger one would fail the query, not just find nothing. */
    after: z.number().int().min(0).max(2_147_483_647).optional(),
    /**
     * On a run topic: also stream the run's hook ledger rows written after the row with this id
     * (0: all of them), each as it is committed. Left out, no ledger rows are sent.
     */
    afterLedger: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  }),
  z.object({ type: z.literal("unsubscribe"), topic: z.string().max(100) }),
  z.object({ type: z.literal("ping") }),
]);
export type ClientMessage = z.infer<typeof clientMessageSchema>;

/** One stored event of a run, as the stream delivers it (`data` follows lib/core/hooks/event-payloads.ts). */
export interface StreamedEvent {
  type: string;
  ts: string;
  data: Record<string, unknown>;
}

/** A run's hook ledger row as db/queries/hook-invocations.ts `listRunHookInvocations` reads it, after JSON. */
type StoredLedgerRow = Json<Awaited<ReturnType<typeof listRunHookInvocations>>[number]>;

/**
 * One hook ledger row of a run, as `GET /api/v1/runs/{id}/hooks` and the stream's `ledger` message
 * send it: the row as stored (more columns than named here, which are the ones the run view reads,
 * typed as the query selects them). `failed` and `timedOut` say the hook erred or timed out;
 * `verdict` is then what its onFailure made of it.
 */
export type LedgerRow = Pick<
  StoredLedgerRow,
  "id" | "eventSeq" | "hookKey" | "matched" | "verdict" | "reason" | "mode" | "action" | "durationMs" | "exitCode" | "output" | "stderr" | "ignored"
> &
  Partial<Pick<StoredLedgerRow, "failed" | "timedOut" | "stdout" | "createdAt">>;

export type ServerMessage =
  /** `role` in `project` (its slug): the one project this socket acts in. */
  | { type: "hello"; role: string; project?: string }
  | { type: "subscribed"; topic: string }
  | { type: "pong" }
  | { type: "error"; message: string }
  | { type: "event"; runId: string; seq: number; event: StreamedEvent }
  /** Ledger rows of a run subscribed with `afterLedger`, in the order written, each once. */
  | { type: "ledger"; runId: string; rows: LedgerRow[] }
  /** The run's row as GET /api/v1/runs/{id} has it. */
  | { type: "run"; run: { id: string } & Record<string, unknown> }
  /** The approval's row as GET /api/v1/approvals has it. */
  | { type: "approval"; approval: { id: string; status: string } & Record<string, unknown> };

const SERVER_TYPES = new Set(["hello", "subscribed", "pong", "error", "event", "ledger", "run", "approval"]);

/** A frame from the server, or undefined for one this client does not understand. */
export function parseServerMessage(raw: string): ServerMessage | undefined {
  try {
    const value = JSON.parse(raw) as { type?: unknown };
    return value && typeof value.type === "string" && SERVER_TYPES.has(value.type) ? (value as ServerMessage) : undefined;
  } catch {
    return undefined;
  }
}

export function serialize(message: ServerMessage): string {
  return JSON.stringify(message);
}
