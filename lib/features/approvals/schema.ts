/**
 * What the approvals feature answers, declared once: an approval as the list query selects it
 * (db/queries/approvals.ts `listApprovals`: the approval, its run's agent and person), sent by
 * GET /api/v1/approvals and read by the approval card, the inbox and the run view with that type.
 */
import type { listApprovals } from "@/db/queries/approvals";
import type { Json } from "@/lib/platform/api/json";

/** One approval of GET /api/v1/approvals `items`. */
export type ApprovalResponse = Json<Awaited<ReturnType<typeof listApprovals>>[number]>;
